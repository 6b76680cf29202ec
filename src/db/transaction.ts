import type { Db } from './connection.ts';
import { stmt } from './statements.ts';

function guardSync<T>(result: T): T {
  if (result instanceof Promise) throw new TypeError('Transaction work cannot return a promise: it must finish before COMMIT');
  return result;
}

/**
 * Runs `work` atomically. Called on its own (the CLI, a test) it is one BEGIN IMMEDIATE … COMMIT,
 * so the server and the CLI can share the file without a lock upgrade deadlock. Called inside a
 * transaction (a group commit, or another domain function) it joins it: the enclosing boundary
 * undoes everything if `work` throws, so domain functions never nest savepoints on the hot path.
 */
export function atomically<T>(db: Db, work: () => T): T {
  if (db.inTransaction) return work();
  stmt(db, 'BEGIN IMMEDIATE').run();
  try {
    const result = guardSync(work());
    stmt(db, 'COMMIT').run();
    return result;
  } catch (error) {
    if (db.inTransaction) stmt(db, 'ROLLBACK').run();
    throw error;
  }
}

/** Runs `work` inside the current transaction so that, if it throws, only its own changes are undone. */
export function inSavepoint<T>(db: Db, work: () => T): T {
  stmt(db, 'SAVEPOINT unit').run();
  try {
    const result = guardSync(work());
    stmt(db, 'RELEASE unit').run();
    return result;
  } catch (error) {
    if (db.inTransaction) {
      stmt(db, 'ROLLBACK TO unit').run();
      stmt(db, 'RELEASE unit').run();
    }
    throw error;
  }
}
