import { spawnSync } from 'node:child_process';
import { accessSync, constants, realpathSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, delimiter, dirname, join, resolve } from 'node:path';
import { isSingleExecutable } from '../shared/assets.ts';

/** How to get Litestream, for every message that says it is missing. */
const HOW_TO_INSTALL = 'Install it with `npm ci` in the Punchcard checkout (on Linux x64 it brings @flydotio/litestream-linux-x64), '
  + 'put it beside the single executable as `litestream`, or put Litestream v0.3.x on PATH as `litestream` (https://litestream.io/install), or set PUNCHCARD_LITESTREAM_BIN to its path.';

const isExecutable = (file: string) => {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/** The first executable `name` in PATH, or null. */
function onPath(name: string, path = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir && isExecutable(join(dir, name))) return join(dir, name);
  }
  return null;
}

/**
 * The binary of the optional npm dependency (@flydotio/litestream-linux-x64; the registry packages
 * for other platforms follow the same naming, so installing one of them by hand works too).
 */
function fromNpm(): string | null {
  if (isSingleExecutable()) return null;
  try {
    const binary = createRequire(import.meta.url).resolve(`@flydotio/litestream-${process.platform}-${process.arch}/litestream`);
    return isExecutable(binary) ? binary : null;
  } catch {
    return null;
  }
}

/** The single executable has no node_modules: Litestream may sit beside it instead, as `litestream`. */
function beside(): string | null {
  const binary = join(dirname(process.execPath), 'litestream');
  return isExecutable(binary) ? binary : null;
}

/**
 * A globally installed @flydotio/litestream puts its wrapper script on PATH as `litestream`: it
 * neither forwards signals nor exits with Litestream, so it cannot be supervised and is skipped.
 */
function litestreamOnPath(path: string | undefined): string | null {
  const found = onPath('litestream', path);
  return found && !/[/\\]@flydotio[/\\]litestream[/\\]index\.js$/.test(realpathSync(found)) ? found : null;
}

/**
 * PUNCHCARD_LITESTREAM_BIN, else (for the single executable) `litestream` beside it, else `litestream`
 * on PATH, else the optional npm dependency. A set but
 * wrong PUNCHCARD_LITESTREAM_BIN is an error rather than a reason to fall back: the operator asked for it.
 */
export function findLitestream(env: NodeJS.ProcessEnv = process.env): string {
  const explicit = env.PUNCHCARD_LITESTREAM_BIN;
  if (explicit) {
    if (isExecutable(explicit)) return explicit;
    throw new Error(`Litestream not found: PUNCHCARD_LITESTREAM_BIN=${explicit} is not an executable file. ${HOW_TO_INSTALL}`);
  }
  const found = (isSingleExecutable() ? beside() : null) ?? litestreamOnPath(env.PATH) ?? fromNpm();
  if (!found) throw new Error(`Litestream not found, and replication needs it. ${HOW_TO_INSTALL}`);
  return found;
}

/** `litestream version`; refuses anything but v0.3.x, whose log lines and flags this code reads. */
export function litestreamVersion(binary: string): string {
  const result = spawnSync(binary, ['version'], { encoding: 'utf8', timeout: 10_000 });
  const version = result.stdout?.trim() ?? '';
  if (result.status !== 0 || !/^v0\.3\.\d+/.test(version)) {
    throw new Error(`${binary} is not Litestream v0.3.x (it answered ${JSON.stringify(version || result.stderr?.trim() || String(result.error ?? ''))}). ${HOW_TO_INSTALL}`);
  }
  return version;
}

export interface LitestreamConfig {
  db: string;
  url: string;
  /** How often Litestream looks at the WAL and ships what is new (its monitor and sync intervals; its default is 1 s). */
  intervalMs: number;
}

/**
 * Writes Litestream's config (JSON is YAML) with mode 0600: the replica URL may carry a password,
 * so it goes in a file rather than on a command line any user can read with `ps`. Debug JSON logs:
 * the supervisor reads the "sync" lines to know what the replica holds.
 */
export function writeLitestreamConfig(file: string, config: LitestreamConfig): void {
  const interval = `${config.intervalMs}ms`;
  const body = {
    logging: { level: 'debug', type: 'json' },
    dbs: [{ path: resolve(config.db), 'monitor-interval': interval, replicas: [{ url: config.url, 'sync-interval': interval }] }],
  };
  writeFileSync(file, `# Written by punchcard on every start; edits here are lost.\n${JSON.stringify(body, null, 2)}\n`, { mode: 0o600 });
}

/** Arguments shared by every Litestream command we run; no $VAR expansion, so a URL is taken as written. */
export const configArgs = (file: string) => ['-no-expand-env', '-config', file];

/** Litestream's own state beside the database; it describes that database only. */
export const litestreamMetaDir = (db: string) => join(dirname(resolve(db)), `.${basename(db)}-litestream`);

/** The replica URL without user, password or query, fit for logs and the unauthenticated /healthz. */
export function redactReplicaUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//').replace(/\?.*$/, '');
  }
}

/** What a failed Litestream command said last: the message of its JSON log line, the replica URL redacted. */
export function litestreamSaid(output: string, url: string): string {
  const last = output.trim().split('\n').at(-1) ?? '';
  let message = last;
  try {
    const line = JSON.parse(last) as { msg?: string; error?: string };
    message = [line.msg, line.error].filter(Boolean).join(': ');
  } catch {
    // not a log line: keep it as printed
  }
  return message.replaceAll(url, redactReplicaUrl(url));
}
