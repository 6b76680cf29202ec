import type Database from 'better-sqlite3';
import { openSqlite } from './sqlite.ts';
import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

export type Synchronous = 'FULL' | 'NORMAL';
export type Db = Database.Database;

export interface OpenOptions {
  /**
   * FULL (default) fsyncs the WAL on every commit: an acknowledged award survives power loss.
   * NORMAL is faster but may lose the last commits on power loss (never on a process crash).
   */
  synchronous?: Synchronous;
}

/**
 * Creates the database's folder one level at a time. Node's recursive mkdirSync loops forever when
 * mkdir answers ENOENT under an existing parent (procfs, sysfs); this fails with that error instead.
 */
export function ensureDirectory(dir: string): void {
  if (existsSync(dir)) return;
  ensureDirectory(dirname(dir));
  mkdirSync(dir);
}

export function openDatabase(path: string, options: OpenOptions = {}): Db {
  ensureDirectory(dirname(path));
  const isNew = !existsSync(path);
  const db = openSqlite(path);
  // Members' personal data lives here: readable by the owner only (SQLite gives the WAL the same mode).
  if (isNew) chmodSync(path, 0o600);
  // Space freed by pruning goes back to the disk in small steps (src/db/maintenance.ts); this only
  // takes effect before the first table is created.
  if (isNew) db.pragma('auto_vacuum = INCREMENTAL');
  db.pragma('journal_mode = WAL');
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  db.pragma(`synchronous = ${options.synchronous ?? 'FULL'}`);
  // What a write frees (an erased member's old row and index entries, pruned rows) is overwritten
  // with zeros, not left in free space in the file for anyone who reads its bytes (bench/README.md
  // has its cost on awards and erasure).
  db.pragma('secure_delete = ON');
  // SQLite's default page cache is 2 MB: over 100,000 members the rows an award touches (the
  // member's, with its leaderboard totals) are on random pages, and each miss is a read from the
  // OS. 32 MB made a leaderboard total's upsert about twice as cheap (bench/README); the cache
  // fills only with pages actually read, so a small shop's server stays small.
  db.pragma('cache_size = -32768');
  return db;
}
