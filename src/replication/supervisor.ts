import { Worker } from 'node:worker_threads';
import type { Logger } from '../shared/log.ts';
import { isSingleExecutable, readRootFile } from '../shared/assets.ts';
import { ROOT_URL } from '../shared/root.ts';
import { configArgs, redactReplicaUrl } from './litestream.ts';
import { describeReplication, writeStatusRecord, type ReplicationState, type ReplicationStatus, type StatusRecord } from './status.ts';
import type { RelayData, RelayMessage } from './relay.ts';
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

/** A log line as the operator reads it: the message, then its attributes but the database path. */
function summary(line: LogLine): string {
  const attributes = Object.entries(line)
    .filter(([key]) => !['time', 'level', 'msg', 'db'].includes(key))
    .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
  return [line.msg, ...attributes].join(' ');
}

interface Relay {
  worker: Worker;
  pid: number | null;
  ended: Promise<unknown>;
}

/**
 * Litestream runs, and its log is read, on a worker thread (relay.ts): it logs while it holds
 * SQLite's write lock, and the main thread may be waiting for that lock (busy_timeout). A log pipe
 * read by the main thread would then fill and stall both; read on the worker, it never waits. The
 * worker also drops the per-frame lines, so the main thread sees a few lines per sync. If the server
 * dies, even by SIGKILL, Litestream follows: its next log line (one per interval at debug level) hits
 * a closed pipe, and Go exits on that, so no orphan replicates beside the next server. The worker is
 * built into dist/relay.mjs with the CLI (`npm run build`): a worker runs JavaScript only. The single
 * executable has no file to point a worker at: it carries the relay as CommonJS source, run with `eval`.
 */
const RELAY = new URL('dist/relay.mjs', ROOT_URL);
const newRelay = (workerData: RelayData) => (isSingleExecutable()
  ? new Worker(readRootFile('dist/relay.cjs').toString('utf8'), { eval: true, workerData })
  : new Worker(RELAY, { workerData }));

/** Runs Litestream (through the relay), restarts it with back-off when it dies, and tracks what the replica holds. */
export function superviseLitestream(options: SupervisorOptions): Replication {
  const { log } = options;
  const tracker = new SyncTracker();
  let relay: Relay | null = null;
  let state: ReplicationState = 'starting';
  let restarts = 0;
  let failures = 0;
  let lastError: string | null = null;
  let restartTimer: NodeJS.Timeout | undefined;
  let stopping = false;

  const record = (): StatusRecord => ({
    pid: process.pid,
    litestreamPid: relay?.pid ?? null,
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

  const onLine = (text: string) => {
    if (text.includes('"msg":"copy-shadow: ok"')) return tracker.copied();
    let line: LogLine;
    try {
      line = JSON.parse(text) as LogLine;
    } catch {
      return noteError(text);
    }
    const before = tracker.syncedThrough;
    tracker.line(line);
    if (tracker.syncedThrough !== before) persist();
    if (line.msg === 'replicating to') {
      state = 'replicating';
      persist();
    }
    // SIGTERM cancels Litestream's context: a checkpoint it was running then fails on the way out.
    // Its last sync has shipped the WAL by then (the replica is checked in test/shutdown.test.ts),
    // so at shutdown that failure is a note, not an error an operator should chase.
    const said = summary(line);
    if (stopping && line.level === 'ERROR' && said.includes('context canceled')) log.info(`Litestream, stopping: ${said}`);
    else if (line.level === 'ERROR' || line.level === 'WARN') noteError(said);
    else if (line.level === 'INFO' && !ROUTINE.has(line.msg)) log.info(`Litestream: ${said}`);
  };

  const start = () => {
    const startedAt = Date.now();
    tracker.restarted();
    const worker = newRelay({ binary: options.binary, args: ['replicate', ...configArgs(options.config)] });
    const current: Relay = { worker, pid: null, ended: new Promise((resolve) => worker.once('exit', resolve)) };
    relay = current;
    const onEnd = (how: string) => {
      if (relay !== current) return;
      relay = null;
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
    worker.on('message', (message: RelayMessage) => {
      if (message.type === 'spawned') {
        current.pid = message.pid ?? null;
        persist();
      } else if (message.type === 'lines') {
        for (const line of message.lines) {
          if (message.stream === 'stdout') onLine(line);
          else noteError(line);
        }
      } else {
        onEnd(message.how);
      }
    });
    // A relay that fails to load or dies ends this run like a Litestream that exits.
    worker.once('error', (error) => onEnd(error.message));
    worker.once('exit', (code) => onEnd(`its relay thread exited with ${code}`));
  };

  start();
  return {
    status: () => describeReplication(record()),
    record,
    async stop() {
      stopping = true;
      clearTimeout(restartTimer);
      const current = relay;
      if (current) {
        current.worker.postMessage('SIGTERM');
        const killer = setTimeout(() => current.worker.postMessage('SIGKILL'), STOP_TIMEOUT_MS);
        await current.ended;
        clearTimeout(killer);
      }
      state = 'stopped';
      if (flushTimer) clearTimeout(flushTimer);
      await flushing;
      await save();
    },
  };
}
