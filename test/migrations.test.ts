import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Db } from '../src/db/connection.ts';
import { migrate, migrationsFromDir, migrationStatus, SchemaTooNewError, type Migration } from '../src/db/migrations.ts';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { leaderboard, memberRanks } from '../src/domain/leaderboard/leaderboard.ts';
import { adjustPoints } from '../src/domain/ledger/ledger.ts';
import { listMembers } from '../src/domain/members/members.ts';
import { startServer } from '../src/server.ts';
import { buildVersion1Database } from './helpers/fixture-0001.ts';
import { client } from './helpers/http.ts';
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

  it('moves leaderboard standings to memory (0022): totals kept, the rank index gone, boards read through their own index', () => {
    migrate(db, migrationsFromDir().filter((m) => m.version < 22));
    db.prepare("INSERT INTO projects (id, name, widget_secret, created_at) VALUES ('prj_a', 'A', 'unused', '2026-01-01T00:00:00.000Z')").run();
    db.prepare(`INSERT INTO members (id, public_id, project_id, external_id, points, total_points_earned, created_at, updated_at)
      VALUES (1, 'mem_1', 'prj_a', 'ann', 5, 5, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`).run();
    db.prepare("INSERT INTO leaderboard_totals (member_id, board, project_id, points, reached_at) VALUES (1, 0, 'prj_a', 5, 0)").run();

    migrate(db, migrationsFromDir().filter((m) => m.version < 24));
    const names = db.prepare("SELECT name FROM sqlite_master WHERE tbl_name LIKE 'leaderboard%' ORDER BY name").pluck().all();
    expect(names).toEqual(expect.arrayContaining(['leaderboard_totals', 'leaderboard_totals_board', 'leaderboard_writes']));
    expect(names).not.toContain('leaderboard_totals_rank');
    expect(names).not.toContain('leaderboard_buckets');
    expect(db.prepare('SELECT id, writes FROM leaderboard_writes').raw().all()).toEqual([[1, 0]]);
    expect(db.prepare('SELECT member_id, board, points FROM leaderboard_totals').raw().all()).toEqual([[1, 0, 5]]);
    // Loading a board and pruning past boards read a range of the board index, not the whole table.
    for (const [sql, ...params] of [['SELECT member_id, points, reached_at FROM leaderboard_totals WHERE project_id = ? AND board = ?', 'prj_a', 0],
      ['SELECT member_id, board FROM leaderboard_totals WHERE project_id = ? AND board > ? AND board < ? LIMIT 5', 'prj_a', 1, 2]] as const) {
      expect(JSON.stringify(db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params)), sql).toMatch(/USING (COVERING )?INDEX leaderboard_totals_board/);
    }
    migrate(db, migrationsFromDir());
    expect(memberRanks(db, 'prj_a', 'ann', 'all', new Date('2026-01-02T00:00:00.000Z')).ranks).toEqual({ all: { rank: 1, points: 5 } });
  });

  it('indexes members once per transaction from 0023: members already there stay found, the insert trigger is gone', () => {
    migrate(db, migrationsFromDir().filter((m) => m.version < 23));
    db.prepare("INSERT INTO projects (id, name, widget_secret, created_at) VALUES ('prj_a', 'A', 'unused', '2026-01-01T00:00:00.000Z')").run();
    const member = db.prepare(`INSERT INTO members (id, public_id, project_id, external_id, name, created_at, updated_at)
      VALUES (?, ?, 'prj_a', ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`);
    member.run(1, 'mem_1', 'ann', 'Ann Larsen'); // indexed by 0002's trigger
    member.run(2, 'mem_2', 'bob', 'Bob Larsen');
    // As if written past the trigger (a bulk load): 0023 indexes it.
    db.exec("INSERT INTO members_search (members_search, rowid, external_id, email, name) VALUES ('delete', 2, 'bob', NULL, 'Bob Larsen')");
    // In SQL: today's code reads columns this schema does not have yet.
    expect(db.prepare(`SELECT m.external_id FROM members_search s JOIN members m ON m.id = s.rowid WHERE members_search MATCH '"lar" AND "sen"'`)
      .pluck().all()).toEqual(['ann']);

    migrate(db, migrationsFromDir());
    const triggers = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'members'").all() as { name: string; sql: string }[];
    expect(triggers.map((t) => t.name)).toEqual(['members_search_update']);
    expect(triggers[0]!.sql).toMatch(/WHEN EXISTS \(SELECT 1 FROM members_search_docsize WHERE id = old.id\)/);
    const found = (search: string) => listMembers(db, 'prj_a', { search, limit: 10, offset: 0 }).members.map((m) => m.externalId);
    expect(found('larsen')).toEqual(['bob', 'ann']);
    db.prepare("UPDATE members SET name = 'Ann Berg' WHERE id = 1").run();
    expect(found('larsen')).toEqual(['bob']);
    expect(() => db.prepare("INSERT INTO members_search (members_search) VALUES ('integrity-check')").run()).not.toThrow();
  });

  it('indexes at server start the members written by other means (a bulk load in SQL)', async () => {
    migrate(db, migrationsFromDir());
    db.prepare("INSERT INTO projects (id, name, widget_secret, created_at) VALUES ('prj_a', 'A', 'unused', '2026-01-01T00:00:00.000Z')").run();
    db.prepare(`INSERT INTO members (public_id, project_id, external_id, name, created_at, updated_at)
      VALUES ('mem_1', 'prj_a', 'loaded-1', 'Bulk Loaded', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`).run();
    const found = () => listMembers(db, 'prj_a', { search: 'bulk', limit: 10, offset: 0 }).members.map((m) => m.externalId);
    expect(found()).toEqual([]);
    const server = await startServer({ db: join(dir, 'punchcard.db'), port: 0, host: '127.0.0.1', logLevel: 'silent', scheduler: false, masterKey: TEST_MASTER_KEY });
    await server.close();
    expect(found()).toEqual(['loaded-1']);
  });

  it('gives leaderboard totals compact keys (0011), then moves the latest onto the members (0024): ranks unchanged, awards keep adding to them', () => {
    migrate(db, migrationsFromDir().filter((m) => m.version <= 9));
    db.prepare("INSERT INTO projects (id, name, widget_secret, created_at) VALUES ('prj_a', 'A', 'unused', '2026-01-01T00:00:00.000Z')").run();
    const addMember = db.prepare(`INSERT INTO members (id, public_id, project_id, external_id, points, total_points_earned, created_at, updated_at)
      VALUES (?, ?, 'prj_a', ?, ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`);
    addMember.run(1, 'mem_1', 'ann', 30, 30);
    addMember.run(2, 'mem_2', 'bob', 12, 12);
    addMember.run(3, 'mem_3', 'cat', 0, 0);
    // Totals as the version-9 award wrote them: earlier days and months stay beside the current ones.
    const total = db.prepare(`INSERT INTO leaderboard_totals (member_id, period, period_key, project_id, points, reached_at)
      VALUES (?, ?, ?, 'prj_a', ?, ?)`);
    for (const [member, period, key, points, at] of [
      [1, 'all', '', 30, '2026-11-23T09:00:00.123Z'], [1, 'month', '2026-10', 10, '2026-10-30T09:00:00.000Z'],
      [1, 'month', '2026-11', 20, '2026-11-23T09:00:00.123Z'], [1, 'week', '2026-11-16', 13, '2026-11-22T09:00:00.000Z'],
      [1, 'week', '2026-11-23', 7, '2026-11-23T09:00:00.123Z'], [1, 'day', '2026-11-22', 13, '2026-11-22T09:00:00.000Z'],
      [1, 'day', '2026-11-23', 7, '2026-11-23T09:00:00.123Z'], [2, 'all', '', 12, '2026-11-23T08:00:00.000Z'],
      [2, 'month', '2026-11', 12, '2026-11-23T08:00:00.000Z'], [2, 'week', '2026-11-23', 12, '2026-11-23T08:00:00.000Z'],
      [2, 'day', '2026-11-23', 12, '2026-11-23T08:00:00.000Z'],
    ] as const) total.run(member, period, key, points, at);

    migrate(db, migrationsFromDir().filter((m) => m.version < 24));
    expect(db.prepare('SELECT member_id, board, points, reached_at FROM leaderboard_totals ORDER BY member_id, board').raw().all()).toEqual([
      [1, 0, 30, Date.parse('2026-11-23T09:00:00.123Z')], [1, 120261001, 10, Date.parse('2026-10-30T09:00:00.000Z')],
      [1, 120261101, 20, Date.parse('2026-11-23T09:00:00.123Z')], [1, 220261116, 13, Date.parse('2026-11-22T09:00:00.000Z')],
      [1, 220261123, 7, Date.parse('2026-11-23T09:00:00.123Z')], [1, 320261122, 13, Date.parse('2026-11-22T09:00:00.000Z')],
      [1, 320261123, 7, Date.parse('2026-11-23T09:00:00.123Z')], [2, 0, 12, Date.parse('2026-11-23T08:00:00.000Z')],
      [2, 120261101, 12, Date.parse('2026-11-23T08:00:00.000Z')], [2, 220261123, 12, Date.parse('2026-11-23T08:00:00.000Z')],
      [2, 320261123, 12, Date.parse('2026-11-23T08:00:00.000Z')],
    ]);
    // 0024: each member's row keeps all time and the latest month, week and day; the table goes.
    migrate(db, migrationsFromDir());
    expect(tables()).not.toContain('leaderboard_totals');
    expect(db.prepare(`SELECT id, total_points_earned, all_reached_at, month_board, month_points, month_reached_at, week_board, week_points,
      week_reached_at, day_board, day_points, day_reached_at FROM members ORDER BY id`).raw().all()).toEqual([
      [1, 30, Date.parse('2026-11-23T09:00:00.123Z'), 120261101, 20, Date.parse('2026-11-23T09:00:00.123Z'),
        220261123, 7, Date.parse('2026-11-23T09:00:00.123Z'), 320261123, 7, Date.parse('2026-11-23T09:00:00.123Z')],
      [2, 12, Date.parse('2026-11-23T08:00:00.000Z'), 120261101, 12, Date.parse('2026-11-23T08:00:00.000Z'),
        220261123, 12, Date.parse('2026-11-23T08:00:00.000Z'), 320261123, 12, Date.parse('2026-11-23T08:00:00.000Z')],
      [3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    ]);
    expect(db.pragma('foreign_key_check')).toEqual([]);

    const now = new Date('2026-11-23T10:00:00.000Z'); // a Monday
    const board = (period: 'all' | 'day') => leaderboard(db, 'prj_a', { period, limit: 10 }, now).entries.map((e) => `${e.externalId}:${e.points}`);
    expect(board('day')).toEqual(['bob:12', 'ann:7']);
    adjustPoints(db, 'prj_a', 'ann', { amount: 5 }, 'test', now);
    adjustPoints(db, 'prj_a', 'cat', { amount: 1 }, 'test', now);
    expect(board('day')).toEqual(['bob:12', 'ann:12', 'cat:1']); // bob reached 12 first
    expect(board('all')).toEqual(['ann:35', 'bob:12', 'cat:1']);
    expect(memberRanks(db, 'prj_a', 'ann', undefined, now).ranks).toEqual({
      all: { rank: 1, points: 35 }, month: { rank: 1, points: 25 }, week: { rank: 2, points: 12 }, day: { rank: 2, points: 12 },
    });
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

  describe('0002: integer keys on the hot tables', () => {
    /** What the API shows of every member and transaction, by public id, plus lots and idempotency records. */
    const publicState = () => ({
      members: db.prepare(`SELECT public_id AS id, project_id, external_id, email, name, metadata, points, total_points_earned,
        created_at, erased_at FROM members ORDER BY id`).all(),
      transactions: db.prepare(`SELECT t.public_id AS id, m.public_id AS member, t.amount, t.balance, t.type, t.description,
        t.expires_at, t.created_at FROM transactions t JOIN members m ON m.id = t.member_id ORDER BY t.id`).all(),
      lots: db.prepare(`SELECT t.public_id AS txn, m.public_id AS member, l.remaining, l.expires_at FROM point_lots l
        JOIN transactions t ON t.id = l.transaction_id JOIN members m ON m.id = l.member_id ORDER BY t.id`).all(),
      // 0013 keeps 16 bytes of the fingerprint and the time in milliseconds: compared as version 1 wrote them.
      idempotency: db.prepare(`SELECT project_id, key, lower(hex(fingerprint)) AS fingerprint, status, body,
        strftime('%Y-%m-%dT%H:%M:%fZ', created_at / 1000.0, 'unixepoch') AS created_at FROM idempotency_keys`).all(),
    });

    it('converts a version-1 database in place, keeping every row, id, balance, lot and idempotency record', () => {
      const built = buildVersion1Database(db);
      const before = {
        members: db.prepare(`SELECT id, project_id, external_id, email, name, metadata, points, total_points_earned, created_at,
          erased_at FROM members ORDER BY rowid`).all(),
        transactions: db.prepare(`SELECT t.id, t.member_id AS member, t.amount, t.balance, t.type, t.description, t.expires_at,
          t.created_at FROM transactions t ORDER BY t.rowid`).all(),
        lots: db.prepare(`SELECT transaction_id AS txn, member_id AS member, remaining, expires_at FROM point_lots l
          ORDER BY (SELECT rowid FROM transactions WHERE id = l.transaction_id)`).all(),
        idempotency: db.prepare('SELECT project_id, key, substr(fingerprint, 1, 32) AS fingerprint, status, body, created_at FROM idempotency_keys').all(),
      };
      expect(before.lots.length).toBeGreaterThan(0);

      expect(migrate(db, migrationsFromDir()).map((m) => m.version)).toContain(2);
      expect(publicState()).toEqual(before);
      expect(checkLedger(db)).toEqual([]);
      expect(db.pragma('foreign_key_check')).toEqual([]);
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const columns = (table: string) => db.prepare(`PRAGMA table_info(${table})`).all() as { name: string; type: string; pk: number }[];
      for (const table of ['members', 'transactions', 'idempotency_keys']) {
        expect(columns(table).find((c) => c.pk === 1), table).toMatchObject({ name: 'id', type: 'INTEGER' });
      }
      expect(columns('transactions').find((c) => c.name === 'member_id')?.type).toBe('INTEGER');

      // The search index was filled from the copied members, without the erased one.
      const [projectA] = built.projects;
      const found = listMembers(db, projectA!, { search: 'Ünïcode', limit: 100, offset: 0 });
      expect(found.pagination.total).toBe(6);
      expect(listMembers(db, projectA!, { search: 'erase-me', limit: 100, offset: 0 }).pagination.total).toBe(0);
      expect(listMembers(db, projectA!, { search: built.erased.id, limit: 100, offset: 0 }).pagination.total).toBe(0);
    });

    it('serves the converted data through the API: same ids and balances, working awards, lots that still expire', async () => {
      const built = buildVersion1Database(db);
      migrate(db, migrationsFromDir());
      db.close();
      const server = await startServer({ db: join(dir, 'punchcard.db'), port: 0, host: '127.0.0.1', logLevel: 'silent', scheduler: false, masterKey: TEST_MASTER_KEY });
      db = openDatabase(join(dir, 'punchcard.db'));
      try {
        const { issueKey } = await import('../src/domain/project/api-keys.ts');
        const api = client(server.url, issueKey(server.ctx.db, { projectId: built.projects[0]!, type: 'secret' }, new Date()).key);
        const shopper = built.members[0]!;
        const read = await api.get('/api/v1/members/shopper-0/points?history=true');
        expect(read.status).toBe(200);
        expect(read.body).toMatchObject({ points: shopper.points, totalEarned: shopper.earned });
        expect(read.body.transactions.map((t: { amount: number }) => t.amount)).toEqual([-10, 25, 100]);
        expect((await api.get('/api/v1/members/shopper-0')).body.id).toBe(shopper.id);

        const award = await api.post('/api/v1/members/shopper-0/points', { amount: 5 });
        expect(award.status).toBe(200);
        expect(award.body.transaction.id).toMatch(/^txn_/);
        expect(award.body.member).toMatchObject({ id: shopper.id, points: shopper.points + 5 });
        // The migrated lot (15 of 25 left, due 2026-06-01) expires before a deduction draws on the balance.
        const expiredLot = 15;
        const spend = await api.post('/api/v1/members/shopper-0/points', { amount: -(shopper.points + 5 - expiredLot) });
        expect(spend.status, spend.text).toBe(200);
        expect(spend.body.member.points).toBe(0);
        const history = (await api.get('/api/v1/members/shopper-0/points?history=true&limit=3')).body.transactions;
        expect(history.map((t: { type: string; amount: number }) => [t.type, t.amount])).toEqual([['DEDUCTED', -(shopper.points + 5 - expiredLot)], ['EXPIRED', -expiredLot], ['EARNED', 5]]);
        expect(checkLedger(server.ctx.db)).toEqual([]);
      } finally {
        await server.close();
      }
    });
  });
});
