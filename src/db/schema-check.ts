import { createHash } from 'node:crypto';
import type { Db } from './connection.ts';
import { migrate, type Migration } from './migrations.ts';
import { hasRootFile, readRootFile } from '../shared/assets.ts';
import { openSqlite, sqliteVersion } from './sqlite.ts';

/**
 * Whether a database file holds exactly the schema Punchcard's migrations make. A trigger, view,
 * table or index someone added to the file (or a trigger changed or dropped) would run, or stop
 * running, inside every later write of the server and the CLI: a trigger added to a backup ran in
 * `serve` and copied members' emails into a table of its own. So restore refuses such a file,
 * the server and the CLI refuse to open one, and `punchcard doctor` names what differs.
 */
export interface SchemaDifference {
  type: string;
  name: string;
  /** foreign: no migration makes it; changed: its definition is not the migrations'; missing: a migration made it and it is gone. */
  problem: 'foreign' | 'changed' | 'missing';
}

interface SchemaObject {
  type: string;
  name: string;
  sql: string | null;
}

/**
 * Tables Litestream (`serve --replicate`) keeps in the database it replicates: plain tables, which
 * run nothing, in every file a replica restores.
 */
const LITESTREAM_TABLES = new Set(['_litestream_seq', '_litestream_lock']);

/** What sqlite_master holds, without SQLite's own objects (autoindexes, sqlite_sequence, ANALYZE's statistics) and Litestream's tables. */
function schemaObjects(db: Db): SchemaObject[] {
  return (db.prepare("SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").all() as SchemaObject[])
    .filter((o) => !(o.type === 'table' && LITESTREAM_TABLES.has(o.name)));
}

/** The tables a virtual table keeps its data in: FTS5 writes their definitions itself, and its version may word them otherwise. */
function shadowTables(db: Db): Set<string> {
  return new Set((db.pragma('table_list') as { name: string; type: string }[]).filter((t) => t.type === 'shadow').map((t) => t.name));
}

/** Objects compare by type and name: SQLite lets a trigger share an index's name. */
const objectKey = (o: SchemaObject) => `${o.type} ${o.name}`;

/** Definitions compare as SQL text with its runs of white space made one. */
const normalised = (sql: string | null) => sql?.replace(/\s+/g, ' ').trim() ?? null;

/** The migration versions the file records as applied; null when it records one this build does not know (a newer Punchcard's). */
function appliedVersions(db: Db, migrations: Migration[]): Set<number> | null {
  const versions = db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[];
  const known = new Set(migrations.map((m) => m.version));
  return versions.every((version) => known.has(version)) ? new Set(versions) : null;
}

interface ExpectedSchema {
  objects: SchemaObject[];
  shadows: string[];
}

/** The built schema of every migration (`npm run build` writes it, src/db/schema-check.ts's schemaFile). */
export const SCHEMA_FILE = 'dist/schema.json';

/** Names a set of migrations as a given SQLite writes their schema. */
const keyOf = (migrations: Migration[], sqliteVersion: string) =>
  createHash('sha256').update(JSON.stringify([sqliteVersion, migrations.map((m) => [m.version, m.sql])])).digest('base64');

/** What the migrations make, applied to an empty in-memory database. */
function buildSchema(migrations: Migration[]): ExpectedSchema {
  const reference = openSqlite(':memory:');
  try {
    migrate(reference, migrations);
    return { objects: schemaObjects(reference), shadows: [...shadowTables(reference)] };
  } finally {
    reference.close();
  }
}

/**
 * The schema of every migration as `npm run build` writes it into dist/ (beside the bundle, as
 * much the program as its code), with the key it holds for: applying them all in memory costs
 * 35–45 ms of CPU in a fresh process (SQLite re-reads the schema at each ALTER TABLE), which every
 * command and every start would pay.
 */
export function schemaFile(migrations: Migration[]): string {
  return JSON.stringify({ key: keyOf(migrations, sqliteVersion()), ...buildSchema(migrations) });
}

/** Built schemas by key, for a process that opens many databases (a test run). */
const built = new Map<string, ExpectedSchema>();

/** What the migrations make: the built file's when it holds for them, else applied in memory now (a checkout not built since). */
function expectedSchema(db: Db, migrations: Migration[]): ExpectedSchema {
  const key = keyOf(migrations, sqliteVersion(db));
  let schema = built.get(key);
  if (!schema && hasRootFile(SCHEMA_FILE)) {
    const file = JSON.parse(readRootFile(SCHEMA_FILE).toString('utf8')) as ExpectedSchema & { key: string };
    if (file.key === key) schema = { objects: file.objects, shadows: file.shadows };
  }
  schema ??= buildSchema(migrations);
  built.set(key, schema);
  return schema;
}

/**
 * How `db`'s schema differs from what the migrations it records make. Empty when they agree, and
 * for a database this build cannot judge: one without schema_migrations (not Punchcard's) or
 * written by a newer Punchcard, which migrate() refuses on its own.
 */
export function schemaDifferences(db: Db, migrations: Migration[]): SchemaDifference[] {
  if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'").get() === undefined) return [];
  const applied = appliedVersions(db, migrations);
  if (applied === null) return [];
  const expected = expectedSchema(db, migrations.filter((m) => applied.has(m.version)));
  const shadows = new Set(expected.shadows);
  const expectedObjects = new Map(expected.objects.map((o) => [objectKey(o), o]));
  const differences: SchemaDifference[] = [];
  for (const object of schemaObjects(db)) {
    const wanted = expectedObjects.get(objectKey(object));
    expectedObjects.delete(objectKey(object));
    if (!wanted) differences.push({ type: object.type, name: object.name, problem: 'foreign' });
    else if (!shadows.has(object.name) && normalised(wanted.sql) !== normalised(object.sql)) {
      differences.push({ type: object.type, name: object.name, problem: 'changed' });
    }
  }
  for (const missing of expectedObjects.values()) differences.push({ type: missing.type, name: missing.name, problem: 'missing' });
  return differences;
}

const PROBLEM_WORDS = { foreign: 'not made by any migration', changed: 'changed from what the migrations make', missing: 'missing' } as const;

/** One sentence naming every difference, e.g. `trigger "steal" (not made by any migration)`. */
export function describeDifferences(differences: SchemaDifference[]): string {
  return differences.map((d) => `${d.type} "${d.name}" (${PROBLEM_WORDS[d.problem]})`).join(', ');
}

/**
 * Refuses a database whose schema is not the migrations' (before anything runs on it, migrations
 * included), naming each difference and the way out.
 */
export function requireMigrationsSchema(db: Db, migrations: Migration[], path: string): void {
  const differences = schemaDifferences(db, migrations);
  if (differences.length === 0) return;
  throw new Error(`${path} has a schema Punchcard's migrations do not make: ${describeDifferences(differences)}. `
    + `Nothing was run on it: a trigger there would run inside every write. ${schemaRemedy(differences)}`);
}

/** What to do about the differences: drop what was added, or go back to a backup made before the change. */
export function schemaRemedy(differences: SchemaDifference[]): string {
  // Triggers and views first: they name the tables.
  const order = ['trigger', 'view', 'index', 'table'];
  const added = differences.filter((d) => d.problem === 'foreign').sort((a, b) => order.indexOf(a.type) - order.indexOf(b.type));
  const drop = added.map((d) => `DROP ${d.type.toUpperCase()} "${d.name.replaceAll('"', '""')}";`).join(' ');
  return added.length === differences.length
    ? `Find out who added it, then drop it with the sqlite3 shell (${drop}) or restore a backup made before it.`
    : 'Find out who changed it, then restore a backup made before the change.';
}
