import { close, fdatasync, open } from 'node:fs';
import type { Db } from './connection.ts';
import { stmt } from './statements.ts';
import { begin, end, settled } from './transaction.ts';
import { frameKept, frameOpened, frameUndone } from './transaction-hooks.ts';

interface PendingWrite {
  work: () => unknown;
  // biome-ignore lint/suspicious/noExplicitAny: each write's promise has its own T; the queue holds them side by side
  resolve: (value: any) => void;
  reject: (reason: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export class StorageError extends Error {
  constructor(cause: unknown) {
    super('The database could not commit the write; nothing was saved. Retry the request.', { cause });
    this.name = 'StorageError';
  }
}

/**
 * Group commit: writes submitted during one turn of the event loop run together in a single
 * BEGIN IMMEDIATE … COMMIT, each inside its own SAVEPOINT so a failing write rolls back only
 * itself. Every promise settles only after the COMMIT, so nothing is acknowledged before it is
 * durable. One fsync then covers many writes, which is what lets synchronous=FULL keep up with
 * HTTP; and because batches run one after another on one connection, balance updates stay
 * serialized without locks.
 *
 * Background writes (the webhook runner's claims and outcomes) wait in a lane of their own: a
 * turn commits either the requests' writes or a small batch of background ones (requests first;
 * when both wait, turns alternate), so an award never waits behind a drain's outcomes in its own
 * batch, and behind at most one small background batch before it. Their COMMIT skips the fsync
 * (synchronous=NORMAL for that transaction, safe in WAL mode): they record work that is done at
 * least once anyway, so losing the last ones on power loss only sends those deliveries again,
 * and the next request's fsync makes them durable with it. The fsync on this path was most of
 * the time the event loop spent blocked while a backlog drained.
 */
export class GroupCommitter {
  readonly #db: Db;
  readonly #maxBatch: number;
  readonly #maxBackgroundBatch: number;
  #queue: PendingWrite[] = [];
  #background: PendingWrite[] = [];
  #scheduled = false;
  /** The last turn committed requests' writes (then a waiting background batch goes next). */
  #foregroundLast = false;
  #foregroundWrites = 0;
  /** When the last requests' batch committed, and when the oldest waiting background write was queued. */
  #foregroundAt = -Infinity;
  #backgroundSince = 0;
  #gathering: NodeJS.Timeout | undefined;
  readonly #backgroundDelayMs: number;
  readonly #now: () => number;
  #idle: (() => void)[] = [];
  /** The connection's own setting, restored after each background batch. */
  readonly #synchronous: number;

  readonly #onBatch: ((size: number) => void) | undefined;

  constructor(db: Db, options: {
    maxBatch?: number; maxBackgroundBatch?: number; backgroundDelayMs?: number; now?: () => number; onBatch?: (size: number) => void;
  } = {}) {
    this.#db = db;
    this.#maxBatch = options.maxBatch ?? 500;
    this.#maxBackgroundBatch = options.maxBackgroundBatch ?? 128;
    this.#backgroundDelayMs = options.backgroundDelayMs ?? 20;
    this.#now = options.now ?? (() => performance.now());
    this.#onBatch = options.onBatch;
    this.#synchronous = db.pragma('synchronous', { simple: true }) as number;
    // SQLite copies what a savepoint may have to undo to a sub-journal, and moves it to a
    // temporary file once it passes 64 KiB; the rest of the batch then writes every page it copies
    // to that file, one system call each. In memory, an award or a member insert in a batch of 100
    // costs 40-50% less CPU (measured in-process). This connection's queries sort through
    // indexes, and the one full VACUUM (useIncrementalVacuum) runs before the server makes its
    // committer, so nothing large is kept in memory instead.
    db.pragma('temp_store = MEMORY');
  }

  /** Requests' writes queued so far (a running count), which background work yields to. */
  get foregroundWrites(): number {
    return this.#foregroundWrites;
  }

  /** Queues synchronous `work` for the next batch; resolves with its result once committed. */
  run<T>(work: () => T): Promise<T> {
    this.#foregroundWrites++;
    return new Promise<T>((resolve, reject) => {
      this.#queue.push({ work, resolve, reject });
      this.#schedule();
    });
  }

  /**
   * Queues background `work`: committed in a turn with no request's write waiting, in batches of
   * at most `maxBackgroundBatch`, without an fsync of its own (see the class comment).
   */
  background<T>(work: () => T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (this.#background.length === 0) this.#backgroundSince = this.#now();
      this.#background.push({ work, resolve, reject });
      this.#schedule();
    });
  }

  /** Resolves once every write queued so far has been committed (or failed). */
  drain(): Promise<void> {
    if (this.#queue.length === 0 && this.#background.length === 0 && !this.#scheduled) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => this.#flush());
  }

  #flush(): void {
    this.#scheduled = false;
    const now = this.#now();
    // Requests first; when both wait, turns alternate, so a steady stream of requests slows the
    // background down without ever stopping it.
    const foreground = this.#queue.length > 0 && (this.#background.length === 0 || !this.#foregroundLast);
    this.#foregroundLast = foreground;
    if (foreground) {
      const batch = this.#queue.splice(0, this.#maxBatch);
      this.#onBatch?.(batch.length);
      this.#commit(batch, true);
      this.#foregroundAt = now;
    } else if (this.#background.length > 0) {
      // While requests come, background writes gather for up to backgroundDelayMs into one larger
      // transaction: many small ones each wrote the same index pages again, and the WAL they
      // grew made SQLite checkpoint several times a second, each blocking the event loop.
      const waitMs = this.#backgroundSince + this.#backgroundDelayMs - now;
      const gather = now - this.#foregroundAt < this.#backgroundDelayMs && waitMs > 0 && this.#background.length < this.#maxBackgroundBatch;
      if (gather) {
        this.#gathering ??= setTimeout(() => {
          this.#gathering = undefined;
          this.#schedule();
        }, waitMs);
        return;
      }
      this.#commit(this.#background.splice(0, this.#maxBackgroundBatch), false);
      this.#backgroundSince = now;
    }
    if (this.#queue.length > 0 || this.#background.length > 0) this.#schedule();
    else for (const resolve of this.#idle.splice(0)) resolve();
  }

  #preflushing = false;
  /**
   * Flushes the WAL pages a background batch wrote, on a thread of libuv's pool, so the next
   * request's fsync (which blocks the event loop) finds them already on disk instead of writing
   * them itself: while a backlog drained, an award's commit took 10-20 ms flushing the drain's
   * pages. An extra fsync changes nothing SQLite relies on; one at a time.
   */
  #preflush(): void {
    if (this.#preflushing || this.#db.memory) return;
    this.#preflushing = true;
    const done = () => {
      this.#preflushing = false;
    };
    open(`${this.#db.name}-wal`, 'r', (error, fd) => {
      if (error) return done();
      fdatasync(fd, () => close(fd, done));
    });
  }

  #commit(batch: PendingWrite[], durable: boolean): void {
    if (batch.length === 0) return;
    const db = this.#db;
    if (!db.open) {
      // A write that comes due after the database closed (a background batch whose gathering
      // timer outlived a shutdown) fails as a failed COMMIT would, instead of throwing on a timer.
      const failure = new StorageError(new Error('the database connection is closed'));
      for (const write of batch) write.reject(failure);
      return;
    }
    const outcomes: Outcome[] = [];
    // Looked up once per batch rather than once per write: the savepoint pair runs for every write.
    const savepoint = stmt(db, 'SAVEPOINT unit');
    const release = stmt(db, 'RELEASE unit');
    // NORMAL (1) skips the commit's fsync in WAL mode; never stronger than the connection's own.
    const relaxed = !durable && this.#synchronous > 1;
    if (relaxed) stmt(db, 'PRAGMA synchronous = NORMAL').run();
    try {
      begin(db);
      for (const write of batch) {
        savepoint.run();
        frameOpened(db);
        try {
          const value = settled(write.work());
          release.run();
          frameKept(db);
          outcomes.push({ ok: true, value });
        } catch (error) {
          // Some errors (I/O, disk full) make SQLite abandon the whole transaction; then nothing
          // of this batch can be committed.
          if (!db.inTransaction) {
            frameUndone(db);
            throw error;
          }
          // Only this write's changes are undone.
          stmt(db, 'ROLLBACK TO unit').run();
          release.run();
          frameUndone(db);
          outcomes.push({ ok: false, error });
        }
      }
      end(db, true);
    } catch (error) {
      end(db, false);
      const failure = new StorageError(error);
      for (const write of batch) write.reject(failure);
      return;
    } finally {
      if (relaxed) stmt(db, `PRAGMA synchronous = ${this.#synchronous}`).run();
    }
    if (relaxed) this.#preflush();
    batch.forEach((write, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) write.resolve(outcome.value);
      else write.reject(outcome.error);
    });
  }
}
