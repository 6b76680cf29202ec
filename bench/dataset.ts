// Bench databases built with SQL, not through HTTP: a project's members and ledger at scale in a
// few statements, cached in <os tmpdir>/punchcard-bench/ keyed by schema version and size, so a
// second run reuses the file. The schema comes from the real migrations (openStore); only the rows
// are written directly, in the shape post() writes them.
//
// Ledger: `members` members (member-0 …), each with `perMember` awards of 1 point, interleaved in
// ledger order the way traffic would write them (transaction i belongs to member i mod members).
// Transaction i of a member has balance i, and every member's points and lifetime earnings equal
// perMember, so checkLedger holds for every member without replaying anything.
//
// Search: `members` members with realistic names, emails and externalIds (cust-…), and the
// trigram index built in one pass (indexNewMembers, as a server start indexes a bulk load).
//
// Search beside a neighbour: the Bench project with one member, and a project named Neighbour
// with `neighbours` members of the same kind, so that the Bench member's search text matches many
// of the neighbour's too.
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { migrationsFromDir } from '../src/db/migrations.ts';
import { indexNewMembers } from '../src/domain/members/members.ts';
import { createProject } from '../src/domain/project/projects.ts';
import { openStore } from '../src/db/store.ts';
import { searchProfile } from './profiles.ts';
import { BENCH_MASTER_KEY, CACHE_DIR } from './settings.ts';

export interface Dataset {
  path: string;
  projectId: string;
  members: number;
  /** Seconds spent building it in this run; 0 when the cached file was reused. */
  buildSeconds: number;
}

const schemaVersion = () => Math.max(...migrationsFromDir().map((m) => m.version));

/** Options of a cached dataset: `schemaBefore` builds it at the schema before that migration (for a bench of the migration itself). */
export interface CacheOptions {
  schemaBefore?: number;
}

/** 1..n as a table, for INSERT … SELECT. */
export const numbers = (n: number) => `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${n})`;

/** created_at of row i: one second apart, ending before 2026, ISO 8601 like toISOString(). */
const timestamp = (i: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + ${i}, 'unixepoch')`;

/**
 * Returns the cached dataset `name`, or builds it: `fill` runs on a connection without journal or
 * fsync (a half-built file is deleted, never renamed into place), then the file goes back to WAL.
 * The build stops with an error once it has run for `limitSeconds`.
 */
export async function cached(
  name: string,
  limitSeconds: number,
  fill: (db: Database.Database, projectId: string, deadline: () => void) => void,
  options: CacheOptions = {},
): Promise<Omit<Dataset, 'members'>> {
  mkdirSync(CACHE_DIR, { recursive: true });
  const migrations = migrationsFromDir().filter((m) => options.schemaBefore === undefined || m.version < options.schemaBefore);
  const path = join(CACHE_DIR, `${name}-schema${options.schemaBefore === undefined ? schemaVersion() : Math.max(...migrations.map((m) => m.version))}.db`);
  const projectOf = (file: string) => {
    const db = new Database(file, { readonly: true });
    try {
      return db.prepare("SELECT id FROM projects WHERE name = 'Bench'").pluck().get() as string;
    } finally {
      db.close();
    }
  };
  if (existsSync(path)) return { path, projectId: projectOf(path), buildSeconds: 0 };

  const started = performance.now();
  const building = `${path}.building`;
  for (const suffix of ['', '-wal', '-shm', '.key']) rmSync(`${building}${suffix}`, { force: true });
  try {
    const store = await openStore({ path: building, masterKey: BENCH_MASTER_KEY, migrations });
    const { project } = createProject(store.db, store.box, { name: 'Bench' }, new Date('2025-01-01T00:00:00Z'));
    store.close();
    const db = new Database(building);
    try {
      db.pragma('journal_mode = OFF');
      db.pragma('synchronous = OFF');
      db.pragma('cache_size = -262144'); // 256 MB: index builds sort in memory
      const deadline = () => {
        const seconds = (performance.now() - started) / 1000;
        if (seconds > limitSeconds) throw new Error(`building ${name} took over ${limitSeconds} s (BENCH_BUILD_LIMIT); gave up`);
      };
      fill(db, project.id, deadline);
      db.pragma('journal_mode = WAL');
    } finally {
      db.close();
    }
    renameSync(building, path);
  } finally {
    for (const suffix of ['', '-wal', '-shm', '.key']) rmSync(`${building}${suffix}`, { force: true });
  }
  return { path, projectId: projectOf(path), buildSeconds: Math.round((performance.now() - started) / 100) / 10 };
}

/** Drops the named indexes and triggers while `work` runs and recreates them from their own SQL after. */
export function without(db: Database.Database, names: string[], work: () => void): void {
  const definitions = names.map((name) => db.prepare('SELECT type, sql FROM sqlite_master WHERE name = ?').get(name) as { type: string; sql: string });
  for (const [i, name] of names.entries()) db.exec(`DROP ${definitions[i]!.type.toUpperCase()} ${name}`);
  work();
  for (const { sql } of definitions) db.exec(sql);
}

export async function ledgerDataset(members: number, perMember: number, limitSeconds: number): Promise<Dataset> {
  const built = await cached(`ledger-${members}x${perMember}`, limitSeconds, (db, projectId, deadline) => {
    db.prepare(`${numbers(members)} INSERT INTO members (id, public_id, project_id, external_id, points, total_points_earned, created_at, updated_at)
      SELECT i, printf('mem_%022d', i), @projectId, 'member-' || (i - 1), ${perMember}, ${perMember}, ${timestamp('i')}, ${timestamp('i')} FROM n`)
      .run({ projectId });
    indexNewMembers(db);
    // Appending to the history index in ledger order touches a random page per row; building it
    // afterwards sorts once.
    without(db, ['transactions_member'], () => {
      const total = members * perMember;
      const chunk = 1_000_000;
      // Integers go into the SQL as literals: better-sqlite3 binds JS numbers as REAL, and a REAL
      // division would make fractional balances.
      const insert = (from: number) => db.prepare(`${numbers(chunk)} INSERT INTO transactions (id, public_id, project_id, member_id,
        amount, balance, type, source, actor, created_at)
        SELECT ${from} + i, printf('txn_%022d', ${from} + i), @projectId, (${from} + i - 1) % ${members} + 1, 1, (${from} + i - 1) / ${members} + 1,
          'EARNED', 'api', 'sk_live_benc', ${timestamp(`(${from} + i) / 100`)} FROM n WHERE ${from} + i <= ${total}`).run({ projectId });
      for (let from = 0; from < total; from += chunk) {
        db.transaction(() => insert(from))();
        deadline();
      }
    });
  });
  return { ...built, members };
}

/** The figures dataset's year starts here (bench:analytics); the Overview is read the morning after its last day. */
const FIGURES_START = Date.parse('2025-06-01T00:00:00Z') / 1000;
const FIGURES_DAYS = 365;
export const FIGURES_NOW = new Date((FIGURES_START + FIGURES_DAYS * 86_400 + 8 * 3_600) * 1000);

/**
 * The admin's Overview at scale (bench:analytics, bench:admin): `members` members and `rows` ledger
 * rows over 365 days from `start` (unix seconds), every kind of row (awards from six sources,
 * claims with their reward_claims rows, game costs, deductions, store refunds, expiry; quest
 * completions with their quest_progress rows), at the schema before migration 0034 (the daily
 * figures), whose backfill a server's start or a bench then runs. Cached, keyed by size and start.
 */
export async function figuresDataset(members: number, rows: number, start = FIGURES_START): Promise<{ path: string; projectId: string }> {
  const step = (FIGURES_DAYS * 86_400 - 86_400) / rows;
  const name = `figures-${members}x${rows}${start === FIGURES_START ? '' : `-from-${new Date(start * 1000).toISOString().slice(0, 10)}`}`;
  return cached(name, 1_800, (db, projectId) => {
    db.prepare("UPDATE projects SET timezone = 'Europe/Paris' WHERE id = ?").run(projectId);
    const at = (i: string) => `strftime('%Y-%m-%dT%H:%M:%fZ', ${start} + (${i}) * ${step}, 'unixepoch')`;
    db.prepare(`${numbers(20)} INSERT INTO rewards (id, project_id, name, type, points_cost, created_at, updated_at)
      SELECT 'rwd_bench_' || (i - 1), @projectId, 'Reward ' || i, 'CUSTOM', 5, ${at('0')}, ${at('0')} FROM n`).run({ projectId });
    db.prepare(`${numbers(20)} INSERT INTO quests (id, project_id, name, completion_mode, created_at, updated_at)
      SELECT 'qst_bench_' || (i - 1), @projectId, 'Quest ' || i, 'MANUAL', ${at('0')}, ${at('0')} FROM n`).run({ projectId });
    // Member m joins at the time of their first row (row m).
    db.prepare(`${numbers(members)} INSERT INTO members (id, public_id, project_id, external_id, created_at, updated_at)
      SELECT i, printf('mem_%022d', i), @projectId, 'member-' || (i - 1), ${at('i - 1')}, ${at('i - 1')} FROM n`).run({ projectId });
    indexNewMembers(db); // the search index is contentless (0026): members are indexed as a server's start indexes a bulk load
    without(db, ['transactions_member'], () => {
      // Row i belongs to member (i - 1) mod members, as its k-th row: k decides its kind, so every
      // member's rows take the same turns and no balance goes below zero.
      db.prepare(`${numbers(rows)}, k AS (SELECT i, (i - 1) % ${members} + 1 AS member, ((i - 1) / ${members}) % 10 AS k FROM n),
        typed AS (SELECT i, member,
          CASE k WHEN 3 THEN 'REDEEMED' WHEN 6 THEN 'SPENT' WHEN 8 THEN iif(member % 2 = 0, 'DEDUCTED', 'EXPIRED') WHEN 9 THEN 'REFUNDED' ELSE 'EARNED' END AS type,
          CASE k WHEN 0 THEN 'api' WHEN 1 THEN 'quest' WHEN 2 THEN 'order' WHEN 3 THEN 'reward' WHEN 4 THEN 'checkin' WHEN 5 THEN 'game'
            WHEN 6 THEN 'game' WHEN 7 THEN 'referral' WHEN 8 THEN iif(member % 2 = 0, 'api', 'expiry') ELSE 'order' END AS source,
          iif(k IN (3, 6, 8, 9), -5, 10 + i % 91) AS amount FROM k)
        INSERT INTO transactions (id, public_id, project_id, member_id, amount, balance, type, source, actor, reference_id, created_at)
        SELECT i, printf('txn_%022d', i), @projectId, member, amount, sum(amount) OVER (PARTITION BY member ORDER BY i), type, source, 'bench',
          CASE WHEN type = 'REDEEMED' THEN 'rwd_bench_' || (i % 20) WHEN source = 'quest' THEN 'qst_bench_' || (i % 20) END, ${at('i - 1')}
        FROM typed ORDER BY i`).run({ projectId });
    });
    db.prepare(`INSERT INTO reward_claims (public_id, project_id, reward_id, member_id, points_spent, via, status, transaction_id, created_at, updated_at)
      SELECT 'clm_' || public_id, project_id, reference_id, member_id, 5, 'redeem', 'COMPLETED', public_id, created_at, created_at
      FROM transactions WHERE type = 'REDEEMED' ORDER BY id`).run();
    db.prepare(`INSERT INTO quest_progress (public_id, project_id, quest_id, member_id, progress, target_count, status, points_awarded, base_points,
        multiplier, transaction_id, created_at, updated_at, completed_at)
      SELECT 'qcp_' || public_id, project_id, reference_id, member_id, 1, 1, 'COMPLETED', amount, amount, 1, public_id, created_at, created_at, created_at
      FROM transactions WHERE source = 'quest' ORDER BY id`).run();
    db.exec(`UPDATE members SET points = t.points, total_points_earned = t.earned FROM (SELECT member_id, sum(amount) AS points,
      sum(max(amount, 0)) AS earned FROM transactions GROUP BY member_id) t WHERE t.member_id = members.id`);
  }, { schemaBefore: 34 });
}

export async function searchDataset(members: number, limitSeconds: number): Promise<Dataset> {
  const built = await cached(`search-${members}`, limitSeconds, (db, projectId) => {
    db.function('profile', { deterministic: true }, (i: unknown, field: unknown) =>
      searchProfile(Number(i))[field as 'externalId' | 'email' | 'name']);
    db.prepare(`${numbers(members)} INSERT INTO members (id, public_id, project_id, external_id, email, name, created_at, updated_at)
      SELECT i, printf('mem_%022d', i), @projectId, profile(i, 'externalId'), profile(i, 'email'), profile(i, 'name'),
        ${timestamp('i')}, ${timestamp('i')} FROM n`).run({ projectId });
    // Members inserted here bypass the server's indexing; the search index is built once.
    indexNewMembers(db);
  });
  return { ...built, members };
}

export async function neighbourSearchDataset(neighbours: number, limitSeconds: number): Promise<Dataset> {
  const built = await cached(`search-beside-${neighbours}`, limitSeconds, (db, projectId) => {
    db.function('profile', { deterministic: true }, (i: unknown, field: unknown) =>
      searchProfile(Number(i))[field as 'externalId' | 'email' | 'name']);
    db.prepare("INSERT INTO projects (id, name, widget_secret, created_at) VALUES ('prj_neighbour', 'Neighbour', 'v1.x.y.z', '2025-01-01T00:00:00.000Z')").run();
    const insert = db.prepare(`${numbers(neighbours + 1)} INSERT INTO members (public_id, project_id, external_id, email, name, created_at, updated_at)
      SELECT printf('mem_%022d', i), CASE WHEN i = 1 THEN @projectId ELSE 'prj_neighbour' END, profile(i - 1, 'externalId'), profile(i - 1, 'email'),
        profile(i - 1, 'name'), ${timestamp('i')}, ${timestamp('i')} FROM n`);
    insert.run({ projectId });
    indexNewMembers(db);
  });
  return { ...built, members: 1 };
}

/** The file's size once its WAL is checkpointed into it. */
export function checkpointedSize(path: string): number {
  const db = new Database(path);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
  return statSync(path).size;
}
