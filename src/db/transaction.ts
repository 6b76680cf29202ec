import type { Database } from 'better-sqlite3';

/**
 * Runs `work` atomically. Outside a transaction it opens one with BEGIN IMMEDIATE, so the server
 * and the CLI can share the file without deadlocking on a lock upgrade; inside one (a group commit
 * or an enclosing domain call) better-sqlite3 uses a SAVEPOINT, so a failure undoes only `work`.
 */
export function atomically<T>(db: Database, work: () => T): T {
  return db.transaction(work).immediate();
}
