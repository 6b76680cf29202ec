import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Synchronous = 'FULL' | 'NORMAL';
export type Db = Database.Database;

export interface OpenOptions {
  /**
   * FULL (default) fsyncs the WAL on every commit: an acknowledged award survives power loss.
   * NORMAL is faster but may lose the last commits on power loss (never on a process crash).
   */
  synchronous?: Synchronous;
  readonly?: boolean;
}

export function openDatabase(path: string, options: OpenOptions = {}): Db {
  if (!options.readonly) mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { readonly: options.readonly ?? false, fileMustExist: options.readonly ?? false });
  if (!options.readonly) db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  return db;
}
