import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../log.ts';
import { configArgs, redactReplicaUrl } from './litestream.ts';
import { describeReplication, writeStatusRecord, type ReplicationState, type ReplicationStatus, type StatusRecord } from './status.ts';
import { SyncTracker, type LogLine } from './tracker.ts';

export interface SupervisorOptions {
  db: string;
  url: string;
  binary: string;
  version: string;
  /** Litestream's config file (see writeLitestreamConfig). */
  config: string;
  masterKey: StatusRecord['masterKey'];
  log: Logger;
}

export interface Replication {
  status(): ReplicationStatus;
  record(): StatusRecord;
  /** Stops Litestream after its last sync (it syncs on SIGTERM) and records the final state. */
  stop(): Promise<void>;
}

const FIRST_RESTART_MS = 1_000;
const MAX_RESTART_MS = 30_000;
/** A Litestream that ran this long was healthy: its next failure starts the back-off again. */
const STABLE_MS = 60_000;
/** Litestream's last sync to a slow remote replica may take a while; after this it is killed. */
const STOP_TIMEOUT_MS = 30_000;
const STATUS_EVERY_MS = 1_000;
/** Lines logged on every sync: the tracker reads them, the operator's log does not need them. */
const ROUTINE = new Set(['write wal segment', 'wal segment written', 'write snapshot', 'snapshot written']);
/** Debug lines logged per WAL frame: matched as bytes, never parsed, so a busy WAL costs next to nothing here. */
const COPIED = Buffer.from('"msg":"copy-shadow: ok"');
const COPY_CHATTER = Buffer.from('"msg":"copy-shadow');

/** Calls `onLine` with each complete line of a stream, as bytes. */
function lines(onLine: (line: Buffer) => void): (chunk: Buffer) => void {
  let rest: Buffer = Buffer.alloc(0);
  return (chunk) => {
    const data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
    let start = 0;
    for (let end = data.indexOf(10); end !== -1; end = data.indexOf(10, start)) {
      if (end > start) onLine(data.subarray(start, end));
      start = end + 1;
    }
    rest = data.subarray(start);
  };
}

/** A log line as the operator reads it: the message, then its attributes but the database path. */
function summary(line: LogLine): string {
  const attributes = Object.entries(line)
    .filter(([key]) => !['time', 'level', 'msg', 'db'].includes(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [line.msg, ...attributes].join(' ');
}

/** Runs Litestream as a child process, restarts it with back-off when it dies, and tracks what the replica holds. */
export function superviseLitestream(options: SupervisorOptions): Replication {
  const { log } = options;
  const tracker = new SyncTracker();
  let child: ChildProcess | null = null;
  let state: ReplicationState = 'starting';
  let restarts = 0;
  let failures = 0;
  let lastError: string | null = null;
  let restartTimer: NodeJS.Timeout | undefined;
  let stopping = false;

  const record = (): StatusRecord => ({
    pid: process.pid,
    litestreamPid: child?.pid ?? null,
    litestreamVersion: options.version,
    replica: redactReplicaUrl(options.url),
    state,
    lastSyncAt: tracker.syncedThrough?.toISOString() ?? null,
    restarts,
    lastError,
    masterKey: options.masterKey,
  });

  // The status file is rewritten at most once a second, off the request path (async I/O).
  let flushTimer: NodeJS.Timeout | null = null;
  let flushing: Promise<void> | null = null;
  let dirty = false;
  let lastFlush = 0;
  const save = () => writeStatusRecord(options.db, record()).catch((error: unknown) => log.error('could not write the replication status file', error));
  const flush = () => {
    flushTimer = null;
    dirty = false;
    lastFlush = Date.now();
    flushing = save()
      .finally(() => {
        flushing = null;
        if (dirty) persist();
      });
  };
  const persist = () => {
    dirty = true;
    if (flushTimer || flushing || stopping) return;
    flushTimer = setTimeout(flush, Math.max(0, lastFlush + STATUS_EVERY_MS - Date.now()));
    flushTimer.unref();
  };

  const noteError = (text: string) => {
    const message = text.replaceAll(options.url, redactReplicaUrl(options.url)); // a URL may carry a password
    lastError = message;
    log.error(`Litestream: ${message}`);
    persist();
  };

  const onLine = (bytes: Buffer) => {
    if (bytes.includes(COPIED)) return tracker.copied();
    if (bytes.includes(COPY_CHATTER)) return;
    let line: LogLine;
    try {
      line = JSON.parse(bytes.toString('utf8')) as LogLine;
    } catch {
      return noteError(bytes.toString('utf8'));
    }
    const before = tracker.syncedThrough;
    tracker.line(line);
    if (tracker.syncedThrough !== before) persist();
    if (line.msg === 'replicating to') {
      state = 'replicating';
      persist();
    }
    if (line.level === 'ERROR' || line.level === 'WARN') noteError(summary(line));
    else if (line.level === 'INFO' && !ROUTINE.has(line.msg)) log.info(`Litestream: ${summary(line)}`);
  };

  const start = () => {
    const startedAt = Date.now();
    tracker.restarted();
    // If the server dies, even by SIGKILL, Litestream follows: its next log line (one per interval
    // at debug level) hits a broken pipe, and Go exits on that. No orphan replicates beside the next server.
    const proc = spawn(options.binary, ['replicate', ...configArgs(options.config)], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    proc.stdout!.on('data', lines(onLine));
    proc.stderr!.on('data', lines((bytes) => noteError(bytes.toString('utf8'))));
    let ended = false;
    const onEnd = (how: string) => {
      if (ended) return;
      ended = true;
      child = null;
      if (stopping) return;
      restarts++;
      failures = Date.now() - startedAt >= STABLE_MS ? 1 : failures + 1;
      const delay = Math.min(FIRST_RESTART_MS * 2 ** (failures - 1), MAX_RESTART_MS);
      state = 'restarting';
      log.error(`Litestream exited (${how}); restarting it in ${delay / 1000} s (restart ${restarts})`);
      persist();
      restartTimer = setTimeout(start, delay);
      restartTimer.unref();
    };
    proc.once('error', (error) => onEnd(error.message));
    proc.once('exit', (code, signal) => onEnd(signal ? `signal ${signal}` : `code ${code}`));
    persist();
  };

  start();
  return {
    status: () => describeReplication(record()),
    record,
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const proc = child;
      if (proc && proc.exitCode === null && proc.signalCode === null) {
        // 'close', not 'exit': the lines of the last sync are read by then.
        const exited = new Promise((resolve) => proc.once('close', resolve));
        proc.kill('SIGTERM');
        const killer = setTimeout(() => proc.kill('SIGKILL'), STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(killer);
      }
      state = 'stopped';
      if (flushTimer) clearTimeout(flushTimer);
      await flushing;
      await save();
    },
  };
}
