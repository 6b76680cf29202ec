// Data care, second pass: a database file holds exactly the schema the migrations make, or
// nothing runs on it. A backup carrying an added trigger was restored ("integrity ok; schema up
// to date; ledger consistent") and its trigger then ran inside serve: it planted a secret key and
// copied every awarded member's email.
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.ts';
import { migrate, migrationsFromDir } from '../../src/db/migrations.ts';
import { schemaDifferences } from '../../src/db/schema-check.ts';
import { buildVersion1Database } from '../helpers/fixture-0001.ts';
import { punchcard, punchcardJson, spawnServer } from '../helpers/cli.ts';

let dir: string;
let db: string;
let projectId: string;
let backup: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-data-care-'));
  db = join(dir, 'shop.db');
  projectId = punchcardJson(['--db', db, 'projects', 'create', '--name', 'Shop']).project.id;
  backup = join(dir, 'backup.db');
  expect(punchcard(['--db', db, 'backup', backup]).status).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The attack: a table to copy into, and a trigger that copies every awarded member's email and plants a key. */
const PLANTED = `CREATE TABLE loot (email TEXT);
  CREATE TRIGGER steal AFTER INSERT ON transactions BEGIN
    INSERT INTO loot SELECT email FROM members WHERE id = new.member_id;
    INSERT INTO api_keys (id, project_id, type, key_hash, key_prefix, created_at)
      VALUES ('key_planted' || new.id, new.project_id, 'secret', hex(randomblob(32)), 'sk_live_plnt', new.created_at);
  END;`;

/** A copy of the backup changed by `sql`. */
function tampered(name: string, sql: string): string {
  const file = join(dir, name);
  copyFileSync(backup, file);
  const copy = new Database(file);
  copy.exec(sql);
  copy.close();
  return file;
}

const loot = (file: string) => {
  const copy = new Database(file, { readonly: true });
  try {
    return copy.prepare('SELECT count(*) FROM loot').pluck().get() as number;
  } finally {
    copy.close();
  }
};

describe('restore accepts only the schema the migrations make', { timeout: 60_000 }, () => {
  it('refuses a backup with an added trigger and table, naming both, and replaces nothing', () => {
    const file = tampered('planted.db', PLANTED);
    const target = join(dir, 'restored-planted.db');
    const refused = punchcard(['--db', target, 'restore', file]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('trigger "steal" (not made by any migration)');
    expect(refused.stderr).toContain('table "loot" (not made by any migration)');
    expect(refused.stderr).toContain('nothing was replaced');
    expect(existsSync(target)).toBe(false);
  });

  it('refuses an added view or index, a changed trigger and a dropped one', () => {
    const cases: [string, string, string][] = [
      ['view', 'CREATE VIEW everyone AS SELECT email FROM members;', 'view "everyone" (not made by any migration)'],
      ['index', 'CREATE INDEX members_by_name ON members(name);', 'index "members_by_name" (not made by any migration)'],
      ['changed trigger', `DROP TRIGGER transactions_append_only_delete;
        CREATE TRIGGER transactions_append_only_delete BEFORE DELETE ON transactions WHEN 0 BEGIN SELECT RAISE(ABORT, 'no'); END;`,
      'trigger "transactions_append_only_delete" (changed from what the migrations make)'],
      ['dropped trigger', 'DROP TRIGGER transactions_append_only_update;', 'trigger "transactions_append_only_update" (missing)'],
    ];
    for (const [label, sql, named] of cases) {
      const target = join(dir, `restored-${label.replace(' ', '-')}.db`);
      const refused = punchcard(['--db', target, 'restore', tampered(`${label.replace(' ', '-')}.db`, sql)]);
      expect(refused.status, label).toBe(1);
      expect(refused.stderr, label).toContain(named);
      expect(existsSync(target), label).toBe(false);
    }
  });

  it('restores an untouched backup as before', () => {
    const target = join(dir, 'restored-clean.db');
    const restored = punchcard(['--db', target, 'restore', backup]);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('schema up to date');
  });

  it('finds nothing foreign in a database upgraded through every migration since version 1, nor in one at an older version', () => {
    const upgraded = openDatabase(join(dir, 'upgraded.db'));
    try {
      buildVersion1Database(upgraded);
      for (const upTo of [2, 9, 13, 19, 22]) migrate(upgraded, migrationsFromDir().filter((m) => m.version <= upTo));
      expect(schemaDifferences(upgraded, migrationsFromDir())).toEqual([]);
      migrate(upgraded, migrationsFromDir());
      expect(schemaDifferences(upgraded, migrationsFromDir())).toEqual([]);
    } finally {
      upgraded.close();
    }
  });
});

describe('serve and doctor on a file with a foreign schema', { timeout: 60_000 }, () => {
  it('serve refuses to start, naming the objects and the fix; nothing ran; doctor reports them; once dropped, both are content', () => {
    const file = tampered('served.db', PLANTED);
    const refused = punchcard(['--db', file, 'serve', '--port', '0', '--host', '127.0.0.1']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('trigger "steal" (not made by any migration)');
    expect(refused.stderr).toContain('DROP TRIGGER "steal"; DROP TABLE "loot";');
    // No other command opens it either: an award would have fired the trigger.
    const award = punchcard(['--db', file, 'points', 'add', '--project', projectId, '--member', 'ada', '--amount', '5']);
    expect(award.status).toBe(1);
    expect(award.stderr).toContain('trigger "steal"');
    expect(punchcard(['--db', file, 'migrate']).status).toBe(1);
    expect(loot(file)).toBe(0);

    const doctor = punchcard(['--db', file, 'doctor']);
    expect(doctor.status).toBe(1);
    expect(doctor.stdout).toContain('Schema: NOT the migrations\' (the server refuses to start on it): table "loot" (not made by any migration), trigger "steal"');
    const json = JSON.parse(punchcard(['--db', file, 'doctor', '--json']).stdout);
    expect(json).toMatchObject({ healthy: false, schema: [
      { type: 'table', name: 'loot', problem: 'foreign' }, { type: 'trigger', name: 'steal', problem: 'foreign' },
    ] });

    const fix = new Database(file);
    fix.exec('DROP TRIGGER "steal"; DROP TABLE "loot";');
    fix.close();
    const healthy = punchcard(['--db', file, 'doctor']);
    expect(healthy.status, healthy.stdout).toBe(0);
    expect(healthy.stdout).toContain('Schema: as the migrations make it.');
  });

  it('doctor reports a trigger added to a live file under a running server', async () => {
    const live = join(dir, 'live.db');
    copyFileSync(backup, live);
    const server = await spawnServer(live);
    try {
      const other = new Database(live);
      other.exec('CREATE TRIGGER spy AFTER UPDATE ON members BEGIN SELECT 1; END;');
      other.close();
      const doctor = punchcard(['--db', live, 'doctor', '--json']);
      expect(doctor.status).toBe(1);
      expect(JSON.parse(doctor.stdout).schema).toEqual([{ type: 'trigger', name: 'spy', problem: 'foreign' }]);
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
    }
  });
});
