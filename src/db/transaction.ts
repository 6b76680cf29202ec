import type { Db } from './connection.ts';
import { stmt } from './statements.ts';
import { transactionBegan, transactionEnded } from './cache-version.ts';
import { dropBeforeCommit, frameKept, frameOpened, frameUndone, runBeforeCommit, transactionOpened } from './transaction-hooks.ts';

/** Transaction work must finish before its COMMIT or RELEASE. */
export function settled<T>(result: T): T {
  if (result instanceof Promise) throw new TypeError('Transaction work cannot return a promise: it must finish before COMMIT');
  return result;
}

/** BEGIN IMMEDIATE, for every transaction src/db opens (the caches' once-per-transaction check starts here). */
export function begin(db: Db): void {
  stmt(db, 'BEGIN IMMEDIATE').run();
  transactionBegan(db);
  frameOpened(db);
  transactionOpened(db);
}

/**
 * COMMIT (after the work asked for with beforeCommit), or ROLLBACK when `commit` is false or
 * either fails; a transaction SQLite already abandoned is left as it is.
 */
export function end(db: Db, commit: boolean): void {
  let committed = false;
  try {
    if (commit) {
      runBeforeCommit(db);
      stmt(db, 'COMMIT').run();
      committed = true;
    }
  } finally {
    if (db.inTransaction) stmt(db, 'ROLLBACK').run();
    if (committed) frameKept(db);
    else frameUndone(db);
    dropBeforeCommit(db);
    transactionEnded(db);
  }
}

const reading = new WeakSet<Db>();

/**
 * Runs a read in one snapshot: BEGIN … COMMIT around `work` (its synchronous part; what a promise
 * does later runs after the COMMIT). Outside a transaction every statement takes and drops
 * SQLite's shared-memory read lock, about 5 µs each, and a read route runs three to eight; inside
 * one they cost a fraction of a microsecond, and they all see the same state. `work` must not
 * write: writes go through the group committer, and atomically() refuses one here.
 */
export function readSnapshot<T>(db: Db, work: () => T): T {
  if (db.inTransaction) return work();
  stmt(db, 'BEGIN').run();
  reading.add(db);
  try {
    return work();
  } finally {
    reading.delete(db);
    if (db.inTransaction) stmt(db, 'COMMIT').run();
  }
}

/**
 * Runs `work` atomically. Called on its own (the CLI, a test) it is one BEGIN IMMEDIATE … COMMIT,
 * so the server and the CLI can share the file without a lock upgrade deadlock. Called inside a
 * transaction (a group commit, or another domain function) it is a savepoint: if `work` throws,
 * only its own writes are undone, so a caller that catches the error keeps a consistent state.
 */
export function atomically<T>(db: Db, work: () => T): T {
  if (reading.has(db)) throw new Error('A write inside readSnapshot: a route that writes must be mounted with write: true');
  if (db.inTransaction) return inSavepoint(db, work);
  begin(db);
  let result: T;
  try {
    result = settled(work());
  } catch (error) {
    end(db, false);
    throw error;
  }
  end(db, true);
  return result;
}

function inSavepoint<T>(db: Db, work: () => T): T {
  // Savepoints of one name nest: RELEASE and ROLLBACK TO name the innermost one.
  stmt(db, 'SAVEPOINT atomically').run();
  frameOpened(db);
  try {
    const result = settled(work());
    stmt(db, 'RELEASE atomically').run();
    frameKept(db);
    return result;
  } catch (error) {
    // Some errors (I/O, disk full) make SQLite abandon the whole transaction: nothing is left to undo.
    if (db.inTransaction) {
      stmt(db, 'ROLLBACK TO atomically').run();
      stmt(db, 'RELEASE atomically').run();
    }
    frameUndone(db);
    throw error;
  }
}
