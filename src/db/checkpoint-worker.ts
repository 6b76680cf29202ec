// The checkpointer's thread (src/db/checkpointer.ts): its own connection copies the WAL's pages
// into the database file, so the server's event loop never waits for that copy or its fsync.
import { parentPort, workerData } from 'node:worker_threads';
import { openSqlite } from './sqlite.ts';

export interface CheckpointWorkerData {
  path: string;
  everyMs: number;
  journalSizeLimit: number;
}

/** To the server: the connection is open; a checkpoint copied `backfilled` of the WAL's `frames` (busy: a reader or the server's own checkpoint held it back). */
export type CheckpointMessage = { type: 'ready' } | { type: 'checkpointed'; frames: number; backfilled: number; busy: boolean };

const { path, everyMs, journalSizeLimit } = workerData as CheckpointWorkerData;
const db = openSqlite(path, { fileMustExist: true });
// A PASSIVE checkpoint never waits for a lock: what it cannot copy now, the next tick copies.
db.pragma('busy_timeout = 0');
db.pragma(`journal_size_limit = ${journalSizeLimit}`);
const port = parentPort!;
let copied = 0;

const timer = setInterval(() => {
  const [result] = db.pragma('wal_checkpoint(PASSIVE)') as { busy: number; log: number; checkpointed: number }[];
  // Reported only when it copied something new, so an idle server's thread sends nothing.
  if (result!.checkpointed !== copied && result!.checkpointed > 0) {
    port.postMessage({ type: 'checkpointed', frames: result!.log, backfilled: result!.checkpointed, busy: result!.busy === 1 } satisfies CheckpointMessage);
  }
  copied = result!.checkpointed;
}, everyMs);

port.on('message', (message) => {
  if (message !== 'stop') return;
  clearInterval(timer);
  db.close();
  port.close();
});
port.postMessage({ type: 'ready' } satisfies CheckpointMessage);
