import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAsset, isSea } from 'node:sea';
import Database from 'better-sqlite3';


let addon: object | undefined;

/**
 * The single executable carries better-sqlite3's addon as the asset `better_sqlite3.node`. A
 * process loads an addon only from a file, so it is written to a private temporary folder, loaded,
 * and removed at once (a loaded library stays mapped): nothing is left outside the data folder.
 */
function embeddedAddon(): object {
  if (!addon) {
    const dir = mkdtempSync(join(tmpdir(), 'punchcard-'));
    try {
      const file = join(dir, 'better_sqlite3.node');
      writeFileSync(file, new Uint8Array(getAsset('better_sqlite3.node')), { mode: 0o500 });
      const module = { exports: {} };
      process.dlopen(module, file);
      addon = module.exports;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  return addon;
}

/** Opens a SQLite file with better-sqlite3, from node_modules or from inside the single executable. */
export function openSqlite(path: string, options: Database.Options = {}): Database.Database {
  if (!isSea()) return new Database(path, options);
  // better-sqlite3 takes its addon as a loaded object too (its docs), which @types/better-sqlite3
  // leaves out (it types `nativeBinding` as a path), hence Reflect.construct.
  const db: Database.Database = Reflect.construct(Database, [path, { ...options, nativeBinding: embeddedAddon() }]);
  return db;
}
