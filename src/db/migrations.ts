import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { isSingleExecutable, readRootFile } from '../shared/assets.ts';
import { rootPath } from '../shared/root.ts';
import type { Db } from './connection.ts';
import { atomically } from './transaction.ts';

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export interface MigrationStatus {
  version: number;
  name: string;
  appliedAt: string | null;
}

const FILE_PATTERN = /^(\d{4})_([a-z0-9_]+)\.sql$/;
const MIGRATIONS_DIR = rootPath('migrations/');

/** Reads `NNNN_name.sql` files from a folder, in version order. */
export function migrationsFromDir(dir: string = MIGRATIONS_DIR): Migration[] {
  return readdirSync(dir)
    .map((file) => ({ file, match: FILE_PATTERN.exec(file) }))
    .filter((entry): entry is { file: string; match: RegExpExecArray } => entry.match !== null)
    .map(({ file, match }) => ({
      version: Number(match[1]),
      name: match[2]!,
      sql: readFileSync(`${dir}/${file}`, 'utf8'),
    }))
    .sort((a, b) => a.version - b.version);
}

/**
 * The migrations this build knows. A single executable embeds them as the asset
 * `migrations.json` (see docs/operations.md); a checkout reads the `migrations/` folder.
 * (Not `await import('node:sea')`: a dynamic import loads Node's whole ES module loader at every start.)
 */
export async function bundledMigrations(): Promise<Migration[]> {
  if (isSingleExecutable()) return JSON.parse(readRootFile('migrations.json').toString('utf8')) as Migration[];
  return migrationsFromDir();
}

const checksum = (sql: string) => createHash('sha256').update(sql).digest('hex');

function ensureTable(db: Db): void {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`);
}

function applied(db: Db): Map<number, { name: string; applied_at: string }> {
  ensureTable(db);
  const rows = db.prepare('SELECT version, name, applied_at FROM schema_migrations').all() as {
    version: number; name: string; applied_at: string;
  }[];
  return new Map(rows.map((row) => [row.version, row]));
}

export class SchemaTooNewError extends Error {
  constructor(dbVersion: number, knownVersion: number) {
    super(
      `This database is at schema version ${dbVersion}, but this Punchcard only knows migrations up to ` +
        `${knownVersion}. It was written by a newer Punchcard: run that version (or restore a backup) ` +
        `instead of downgrading.`,
    );
    this.name = 'SchemaTooNewError';
  }
}

/** Refuses a database written by newer code: running old code on it could corrupt data silently. */
function assertNotNewer(db: Db, migrations: Migration[]): void {
  const known = Math.max(0, ...migrations.map((m) => m.version));
  const newest = Math.max(0, ...applied(db).keys());
  if (newest > known) throw new SchemaTooNewError(newest, known);
}

/** Applies every pending migration in order, each in its own transaction. Returns what it applied. */
export function migrate(db: Db, migrations: Migration[], now: Date = new Date()): Migration[] {
  assertNotNewer(db, migrations);
  const done = applied(db);
  const pending = migrations.filter((m) => !done.has(m.version));
  const record = db.prepare('INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (?, ?, ?, ?)');
  for (const migration of pending) {
    atomically(db, () => {
      db.exec(migration.sql);
      record.run(migration.version, migration.name, checksum(migration.sql), now.toISOString());
    });
  }
  return pending;
}

export function migrationStatus(db: Db, migrations: Migration[]): MigrationStatus[] {
  const done = applied(db);
  const known = migrations.map((m) => ({ version: m.version, name: m.name, appliedAt: done.get(m.version)?.applied_at ?? null }));
  const unknown = [...done.entries()]
    .filter(([version]) => !migrations.some((m) => m.version === version))
    .map(([version, row]) => ({ version, name: `${row.name} (unknown to this build)`, appliedAt: row.applied_at }));
  return [...known, ...unknown].sort((a, b) => a.version - b.version);
}
