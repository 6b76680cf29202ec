import type pino from 'pino';
import { terminalLines } from './terminal-text.ts';

export type LogLevel = 'silent' | 'error' | 'info';
/** `text`: one readable line per message (the default); `json`: one JSON object per line, for a log collector. */
export type LogFormat = 'text' | 'json';

/** What the request log says of one request: never a key, a header, a query or a body. */
export interface RequestLine {
  method: string;
  /** The route's pattern (`/api/v1/members/:externalId/points`), never the path itself: paths hold externalIds. */
  route: string | null;
  status: number;
  durationMs: number;
  projectId: string | null;
  requestId: string;
}

export interface Logger {
  info(message: string): void;
  /** Something an operator should act on that is not a fault of the server (a receiver failing). */
  warn(message: string): void;
  error(message: string, error?: unknown): void;
  /** One line per answered request; absent when request lines are off (`--quiet`, or below level info). */
  request?(line: RequestLine): void;
}

export interface LoggerOptions {
  /** `json` needs `pino`: the caller loads it (`await import('pino')`), so commands that never log JSON do not pay its start-up cost. */
  format?: LogFormat;
  pino?: typeof pino;
  /** Write a line per request (serve's default; `--quiet` turns it off). */
  requests?: boolean;
}

const textRequest = (line: RequestLine) => `${line.method} ${line.route ?? '(no route)'} ${line.status} ${line.durationMs}ms`
  + ` project=${line.projectId ?? '-'} request=${line.requestId}`;

/**
 * Text lines on stderr, as before the JSON format existed. Control characters a message carries are
 * escaped (terminal-text.ts); request lines hold only fields of our own making, and skip that.
 */
function textLogger(at: (wanted: LogLevel) => boolean, requests: boolean): Logger {
  const line = (text: string) => process.stderr.write(`${new Date().toISOString()} ${text}\n`);
  const write = (text: string) => line(terminalLines(text));
  return {
    info(message) {
      if (at('info')) write(message);
    },
    warn(message) {
      if (at('error')) write(`WARN ${message}`);
    },
    error(message, error) {
      if (!at('error')) return;
      const detail = error instanceof Error ? `\n${error.stack ?? error.message}` : error === undefined ? '' : ` ${String(error)}`;
      write(`ERROR ${message}${detail}`);
    },
    ...(requests && at('info') ? { request: (request: RequestLine) => line(textRequest(request)) } : {}),
  };
}

/**
 * JSON lines through pino (its writes are asynchronous and cheap on the request path). `msg` is
 * "request" for request lines, so a collector can tell them from messages.
 */
function jsonLogger(create: typeof pino, level: LogLevel, requests: boolean): Logger {
  const log = create({ level: level === 'silent' ? 'silent' : level, base: null, timestamp: create.stdTimeFunctions.isoTime },
    create.destination({ dest: 2, sync: false }));
  return {
    info: (message) => log.info(message),
    warn: (message) => log.warn(message),
    error: (message, error) => (error === undefined ? log.error(message) : log.error({ err: error }, message)),
    ...(requests && level === 'info' ? { request: (line: RequestLine) => log.info(line, 'request') } : {}),
  };
}

/**
 * Logs on stderr (stdout is kept for what a command prints, such as keys or JSON). Callers log
 * messages and errors, and the request log only the fields of RequestLine, never request headers
 * or bodies, so no key or secret is logged.
 */
export function createLogger(level: LogLevel = 'info', options: LoggerOptions = {}): Logger {
  const requests = options.requests === true;
  if (options.format === 'json') {
    if (!options.pino) throw new Error('the JSON log format needs pino: pass it as options.pino');
    return jsonLogger(options.pino, level, requests);
  }
  return textLogger((wanted) => level !== 'silent' && (wanted === 'error' || level === 'info'), requests);
}
