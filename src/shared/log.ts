export type LogLevel = 'silent' | 'error' | 'info';

export interface Logger {
  info(message: string): void;
  /** Something an operator should act on that is not a fault of the server (a receiver failing). */
  warn(message: string): void;
  error(message: string, error?: unknown): void;
}

/**
 * Plain-text logs on stderr (stdout is kept for what a command prints, such as keys or JSON).
 * Callers log messages and errors, never request headers or bodies, so no key or secret is logged.
 */
export function createLogger(level: LogLevel = 'info'): Logger {
  const at = (wanted: LogLevel) => level !== 'silent' && (wanted === 'error' || level === 'info');
  return {
    info(message) {
      if (at('info')) process.stderr.write(`${new Date().toISOString()} ${message}\n`);
    },
    warn(message) {
      if (at('error')) process.stderr.write(`${new Date().toISOString()} WARN ${message}\n`);
    },
    error(message, error) {
      if (!at('error')) return;
      const detail = error instanceof Error ? `\n${error.stack ?? error.message}` : error === undefined ? '' : ` ${String(error)}`;
      process.stderr.write(`${new Date().toISOString()} ERROR ${message}${detail}\n`);
    },
  };
}
