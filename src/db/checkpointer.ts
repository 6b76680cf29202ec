import { EventEmitter } from 'node:events';
import { Worker } from 'node:worker_threads';
import { isSingleExecutable, readRootFile } from '../shared/assets.ts';
import { ROOT_URL } from '../shared/root.ts';
import type { CheckpointMessage, CheckpointWorkerData } from './checkpoint-worker.ts';
import type { Db } from './connection.ts';
import { JOURNAL_SIZE_LIMIT } from './maintenance.ts';

/** SQLite's own automatic checkpoint, restored if the thread fails: every 1,000 WAL pages. */
const AUTOCHECKPOINT_PAGES = 1000;
/** How often the thread copies what the WAL gained. */
export const CHECKPOINT_EVERY_MS = 100;

/**
 * Checkpoints on a worker thread, when Punchcard owns checkpoints (no Litestream). SQLite's
 * automatic checkpoint runs inside the COMMIT that crosses 1,000 WAL pages, on the event loop:
 * under 1,000 awards/s that was a 20-35 ms COMMIT every quarter of a second, most of the award p99
 * (bench/README.md). The thread's own connection runs a PASSIVE checkpoint every
 * CHECKPOINT_EVERY_MS, which never blocks the server's writes; the server's connection stops
 * checkpointing by itself (wal_autocheckpoint = 0) while the thread runs, and takes it back if the
 * thread fails. StorageMaintenance's TRUNCATE once writes pause stays on the server's connection.
 *
 * The worker is built into dist/checkpoint-worker.mjs with the CLI (`npm run build`); the single
 * executable carries it as CommonJS source, run with `eval`, as it does the replication relay.
 */
export class Checkpointer extends EventEmitter<{ checkpointed: [CheckpointMessage & { type: 'checkpointed' }]; failed: [Error] }> {
  readonly #db: Db;
  readonly #worker: Worker;
  #stopping = false;
  readonly #ended: Promise<void>;

  constructor(db: Db, path: string, everyMs = CHECKPOINT_EVERY_MS) {
    super();
    this.#db = db;
    const workerData: CheckpointWorkerData = { path, everyMs, journalSizeLimit: JOURNAL_SIZE_LIMIT };
    this.#worker = isSingleExecutable()
      ? new Worker(readRootFile('dist/checkpoint-worker.cjs').toString('utf8'), { eval: true, workerData })
      : new Worker(new URL('dist/checkpoint-worker.mjs', ROOT_URL), { workerData });
    db.pragma('wal_autocheckpoint = 0');
    this.#worker.on('message', (message: CheckpointMessage) => {
      if (message.type === 'checkpointed') this.emit('checkpointed', message);
    });
    this.#ended = new Promise((resolve) => {
      this.#worker.once('error', (error) => this.#fail(error));
      this.#worker.once('exit', (code) => {
        if (!this.#stopping) this.#fail(new Error(`the checkpoint thread exited (code ${code})`));
        resolve();
      });
    });
  }

  /** The server's connection checkpoints by itself again, as SQLite does by default. */
  #fail(error: Error): void {
    if (this.#stopping) return;
    this.#stopping = true;
    if (this.#db.open) this.#db.pragma(`wal_autocheckpoint = ${AUTOCHECKPOINT_PAGES}`);
    this.emit('failed', error);
    void this.#worker.terminate();
  }

  /** Ends the thread and closes its connection (before the server closes its own, which then checkpoints what is left). */
  async stop(): Promise<void> {
    if (!this.#stopping) {
      this.#stopping = true;
      this.#worker.postMessage('stop');
    }
    await this.#ended;
  }

  /** For tests: ends the thread as a crash would. */
  crashForTest(): Promise<number> {
    return this.#worker.terminate();
  }
}
