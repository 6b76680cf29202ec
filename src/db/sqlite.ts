import { mkdtempSync, rmdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRawAsset, isSea } from 'node:sea';
import Database from 'better-sqlite3';
import { localDay } from '../shared/local-dates.ts';


let addon: object | undefined;

/**
 * Removes the addon's copy and its folder: unlink and rmdir (the folder never holds more than this
 * one file), about 1 ms less per start than a recursive rmSync.
 */
function removeAddonCopy(file: string, dir: string): void {
  try {
    unlinkSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  rmdirSync(dir);
}

/**
 * The single executable carries better-sqlite3's addon as the asset `better_sqlite3.node`. A
 * process loads an addon only from a file, so it is written to a private temporary folder, loaded,
 * and removed at once (a loaded library stays mapped): nothing is left outside the data folder.
 */
function embeddedAddon(): object {
  if (!addon) {
    const dir = mkdtempSync(join(tmpdir(), 'punchcard-'));
    const file = join(dir, 'better_sqlite3.node');
    try {
      // The raw asset is the executable's own memory: no copy of the 2 MB addon before writing it.
      const raw = getRawAsset('better_sqlite3.node');
      writeFileSync(file, typeof raw === 'string' ? raw : new Uint8Array(raw), { mode: 0o500 });
      const module = { exports: {} };
      try {
        process.dlopen(module, file);
      } catch (error) {
        throw new Error(`could not load the SQLite driver from ${dir} (${(error as Error).message}); if that folder is mounted noexec, set TMPDIR to one that is not`);
      }
      addon = module.exports;
    } finally {
      removeAddonCopy(file, dir);
    }
  }
  return addon;
}

/** Opens a SQLite file with better-sqlite3, from node_modules or from inside the single executable. */
export function openSqlite(path: string, options: Database.Options = {}): Database.Database {
  // better-sqlite3 takes its addon as a loaded object too (its docs), which @types/better-sqlite3
  // leaves out (it types `nativeBinding` as a path), hence Reflect.construct.
  const db: Database.Database = isSea() ? Reflect.construct(Database, [path, { ...options, nativeBinding: embeddedAddon() }]) : new Database(path, options);
  addFunctions(db);
  return db;
}

/**
 * The version of the SQLite better-sqlite3 carries: of `db`, or of a connection opened in memory for
 * the asking (which also proves the driver loads).
 */
export function sqliteVersion(db?: Database.Database): string {
  const connection = db ?? openSqlite(':memory:');
  try {
    return connection.prepare('SELECT sqlite_version()').pluck().get() as string;
  } finally {
    if (!db) connection.close();
  }
}

/**
 * The SQL functions of ours the schema uses, on every connection (the server's, the CLI's, the
 * schema check's in-memory copy of the migrations): SQLite's lower() and LIKE fold ASCII letters
 * only, and member search folds every letter (Ünal, émilie); the programme's daily figures count
 * calendar days in the project's time zone, and recounting them from the ledger in SQL
 * (migrations/0034) needs the same dates the postings counted on.
 */
function addFunctions(db: Database.Database): void {
  db.function('lower_unicode', { deterministic: true }, (text: unknown) => (typeof text === 'string' ? text.toLowerCase() : text));
  db.function('local_day', { deterministic: true }, localDay);
}
