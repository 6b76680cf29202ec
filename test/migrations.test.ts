import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/db/connection.ts';
import { migrate, migrationsFromDir, migrationStatus, SchemaTooNewError, type Migration } from '../src/db/migrations.ts';
import { startServer } from '../src/server.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

let dir: string;
let db: Db;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-migrations-'));
  db = openDatabase(join(dir, 'punchcard.db'));
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const tables = () => (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map((t) => t.name);

describe('migrations', () => {
  it('applies every migration in order on a fresh database and records them', () => {
    const migrations = migrationsFromDir();
    expect(migrations.map((m) => m.version)).toEqual([...migrations.map((m) => m.version)].sort((a, b) => a - b));
    expect(migrate(db, migrations)).toHaveLength(migrations.length);
    expect(tables()).toEqual(expect.arrayContaining(['members', 'transactions', 'point_lots', 'api_keys', 'projects', 'idempotency_keys', 'schema_migrations']));
    expect(migrationStatus(db, migrations).every((m) => m.appliedAt !== null)).toBe(true);
  });

  it('is a no-op when re-run', () => {
    const migrations = migrationsFromDir();
    migrate(db, migrations);
    const schema = db.prepare('SELECT sql FROM sqlite_master ORDER BY name').all();
    expect(migrate(db, migrations)).toEqual([]);
    expect(db.prepare('SELECT sql FROM sqlite_master ORDER BY name').all()).toEqual(schema);
  });

  it('applies only what is pending, and rolls back a failing migration whole', () => {
    const base = migrationsFromDir();
    migrate(db, base);
    const next = Math.max(...base.map((m) => m.version)) + 1;
    const broken: Migration = { version: next, name: 'broken', sql: 'CREATE TABLE half (id INTEGER); SELECT no_such_function();' };
    expect(() => migrate(db, [...base, broken])).toThrow();
    expect(tables()).not.toContain('half');
    expect(migrationStatus(db, [...base, broken]).at(-1)).toMatchObject({ version: next, appliedAt: null });

    const good: Migration = { version: next, name: 'extra', sql: 'CREATE TABLE extra (id INTEGER);' };
    expect(migrate(db, [...base, good]).map((m) => m.name)).toEqual(['extra']);
  });

  it('refuses a database written by newer code, with a clear message', async () => {
    const migrations = migrationsFromDir();
    migrate(db, migrations);
    db.prepare("INSERT INTO schema_migrations (version, name, checksum, applied_at) VALUES (9999, 'future', 'x', '2030-01-01')").run();
    expect(() => migrate(db, migrations)).toThrow(SchemaTooNewError);
    expect(() => migrate(db, migrations)).toThrow(/schema version 9999.*only knows migrations up to/);
    await expect(startServer({ db: join(dir, 'punchcard.db'), port: 0, host: '127.0.0.1', logLevel: 'silent', scheduler: false, masterKey: TEST_MASTER_KEY }))
      .rejects.toThrow(SchemaTooNewError);
  });
});
