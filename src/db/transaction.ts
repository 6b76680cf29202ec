import type { Db } from './connection.ts';
import { stmt } from './statements.ts';

/** Runs `work` between `open` and `close`; if it throws, runs `undo` and rethrows. */
function bracket<T>(db: Db, open: string, close: string[], undo: string[], work: () => T): T {
  stmt(db, open).run();
  try {
    const result = work();
    if (result instanceof Promise) throw new TypeError('Transaction work cannot return a promise: it must finish before COMMIT');
    for (const sql of close) stmt(db, sql).run();
    return result;
  } catch (error) {
    if (db.inTransaction) for (const sql of undo) stmt(db, sql).run();
    throw error;
  }
}

/**
 * Runs `work` atomically. Called on its own (the CLI, a test) it is one BEGIN IMMEDIATE … COMMIT,
 * so the server and the CLI can share the file without a lock upgrade deadlock. Called inside a
 * transaction (a group commit, or another domain function) it joins it: the enclosing boundary
 * undoes everything if `work` throws, so domain functions never nest savepoints on the hot path.
 */
export function atomically<T>(db: Db, work: () => T): T {
  return db.inTransaction ? work() : bracket(db, 'BEGIN IMMEDIATE', ['COMMIT'], ['ROLLBACK'], work);
}
