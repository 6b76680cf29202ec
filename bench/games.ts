// Game plays per second, the leaderboard's cost per award, and leaderboard latency on a large ledger.
//   npx tsx bench/games.ts [--transactions 10000000] [--members 100000] [--plays 5000]
// Everything runs in-process on temp files (no HTTP), so the figures are the database work alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { createItem } from '../src/domain/catalog/catalog-items.ts';
import { games } from '../src/domain/catalog/game-kind.ts';
import { playGame } from '../src/domain/games/play.ts';
import { addToLeaderboards, leaderboard, memberRanks, PERIODS } from '../src/domain/leaderboard/leaderboard.ts';
import { adjustPoints } from '../src/domain/ledger/ledger.ts';
import { upsertMember } from '../src/domain/members/members.ts';
import { createProject } from '../src/domain/project/projects.ts';
import { openStore, type Store } from '../src/db/store.ts';

const { values } = parseArgs({
  options: { transactions: { type: 'string', default: '10000000' }, members: { type: 'string', default: '100000' }, plays: { type: 'string', default: '5000' } },
});
const TRANSACTIONS = Number(values.transactions);
const MEMBERS = Number(values.members);
const PLAYS = Number(values.plays);
const NOW = new Date('2026-03-31T12:00:00.000Z');
const dirs: string[] = [];

async function tempStore(name: string): Promise<Store> {
  const dir = mkdtempSync(join(tmpdir(), `punchcard-bench-${name}-`));
  dirs.push(dir);
  return openStore({ path: join(dir, `${name}.db`), masterKey: '00'.repeat(32) });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
function timed(runs: number, work: (i: number) => void) {
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    work(i);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return { p50: +percentile(ms, 50).toFixed(3), p99: +percentile(ms, 99).toFixed(3), max: +ms.at(-1)!.toFixed(3) };
}

/** Plays of one SPIN_WHEEL by 1000 members, 50 plays per transaction (as the group commit batches them) and one per transaction. */
async function playRate() {
  const store = await tempStore('plays');
  const { db } = store;
  const { project } = createProject(db, store.box, { name: 'Bench' }, NOW);
  const game = createItem(db, games, project.id, {
    key: null, name: 'Wheel', description: null, imageUrl: null, type: 'SPIN_WHEEL', pointsCost: 1, maxPlaysPerUser: null, dailyPlaysLimit: null, cooldownMinutes: 0, prizes: [{ name: 'Miss', value: 0, weight: 3 }, { name: 'Win', value: 5, weight: 1 }],
    streakBonuses: [], checkinPoints: 0, showOdds: true, isActive: true,
  }, NOW);
  const ids = Array.from({ length: 1000 }, (_, i) => `m${i}`);
  db.transaction(() => {
    for (const externalId of ids) {
      upsertMember(db, project.id, { externalId }, NOW);
      adjustPoints(db, project.id, externalId, { amount: 1_000_000 }, 'bench', NOW);
    }
  }).immediate();
  const play = (i: number) => playGame(db, project.id, game.id, ids[i % ids.length]!, 'bench', NOW);
  const rate = (perTransaction: number) => {
    const batch = db.transaction((from: number, to: number) => { for (let i = from; i < to; i++) play(i); });
    const start = process.hrtime.bigint();
    for (let i = 0; i < PLAYS; i += perTransaction) {
      if (perTransaction === 1) play(i);
      else batch.immediate(i, Math.min(i + perTransaction, PLAYS));
    }
    return Math.round(PLAYS / (Number(process.hrtime.bigint() - start) / 1e9));
  };
  rate(50); // warm-up
  const result = { grouped50PerSecond: rate(50), onePerTransactionPerSecond: rate(1), ledgerSound: checkLedger(db).length === 0 };
  // The leaderboard's share of an award: the four upserts alone against a whole manual award, each
  // measured as the mean of 5000 inside one transaction, so commit costs do not hide the difference.
  const meanMicros = (work: (i: number) => void) => {
    const start = process.hrtime.bigint();
    db.transaction(() => { for (let i = 0; i < 5000; i++) work(i); }).immediate();
    return Math.round(Number(process.hrtime.bigint() - start) / 5000 / 1000);
  };
  const memberIds = db.prepare('SELECT id FROM members').pluck().all() as number[];
  const awardMicros = meanMicros((i) => adjustPoints(db, project.id, ids[i % ids.length]!, { amount: 1 }, 'bench', NOW));
  const leaderboardUpsertMicros = meanMicros((i) => addToLeaderboards(db, project.id, memberIds[i % memberIds.length]!, 1, NOW));
  store.close();
  return { ...result, awardMicros, leaderboardUpsertMicros };
}

/** A synthetic project: MEMBERS members, TRANSACTIONS awards spread over the 90 days before NOW, totals built from them. */
async function buildLedger(store: Store, projectId: string) {
  const { db } = store;
  db.pragma('synchronous = OFF');
  const start = Date.now();
  db.prepare(`INSERT INTO members (public_id, project_id, external_id, name, created_at, updated_at)
    WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < ?)
    SELECT 'mem_bench' || i, ?, 'member-' || i, 'Member ' || i, '2025-12-01T00:00:00.000Z', '2025-12-01T00:00:00.000Z' FROM seq`).run(MEMBERS, projectId);
  const firstMember = db.prepare('SELECT min(id) FROM members WHERE project_id = ?').pluck().get(projectId) as number;
  // Indexes are dropped for the bulk load and rebuilt once afterwards.
  const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'transactions' AND sql IS NOT NULL").all() as { name: string; sql: string }[];
  for (const index of indexes) db.exec(`DROP INDEX ${index.name}`);
  const spanSeconds = 90 * 86_400;
  const nowSeconds = NOW.getTime() / 1000;
  db.prepare(`INSERT INTO transactions (public_id, project_id, member_id, amount, balance, type, source, actor, created_at)
    WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i < @n - 1)
    SELECT 'txn_bench' || i, @projectId, @first + abs(random()) % @members, 1 + abs(random()) % 100, 0, 'EARNED', 'quest', 'bench',
      strftime('%Y-%m-%dT%H:%M:%fZ', @nowSeconds - @span + (i * @span) / @n, 'unixepoch') FROM seq`)
    .run({ n: TRANSACTIONS, projectId, first: firstMember, members: MEMBERS, nowSeconds, span: spanSeconds });
  // Each member's totals on their row (migrations/0024): all time, and the latest month, week and
  // day with their boards (period * 10^8 + the period's first day as YYYYMMDD; the project is UTC).
  const at = "CAST(strftime('%s', created_at) AS INTEGER) * 1000 + CAST(substr(created_at, 21, 3) AS INTEGER)";
  db.prepare(`UPDATE members SET points = t.points, total_points_earned = t.points, all_reached_at = t.at
    FROM (SELECT member_id, sum(amount) AS points, max(${at}) AS at FROM transactions WHERE project_id = ? GROUP BY member_id) t
    WHERE t.member_id = members.id`).run(projectId);
  const firstDay = (date: string) => `CAST(strftime('%Y%m%d', ${date}) AS INTEGER)`;
  const latest = (kind: string, board: string) => db.prepare(`UPDATE members SET ${kind}_board = t.board, ${kind}_points = t.points,
    ${kind}_reached_at = t.at FROM (SELECT member_id, max(board) AS board, points, at FROM (SELECT member_id, ${board} AS board,
      sum(amount) AS points, max(${at}) AS at FROM transactions WHERE project_id = ? GROUP BY member_id, board) GROUP BY member_id) t
    WHERE t.member_id = members.id`).run(projectId);
  latest('month', `100000000 + ${firstDay("created_at, 'start of month'")}`);
  latest('week', `200000000 + ${firstDay("created_at, 'weekday 0', '-6 days'")}`); // the Monday of the UTC week
  latest('day', `300000000 + ${firstDay('created_at')}`);
  for (const index of indexes) db.exec(index.sql);
  db.exec('ANALYZE');
  db.pragma('synchronous = FULL');
  return { buildSeconds: Math.round((Date.now() - start) / 1000) };
}

async function leaderboardLatency() {
  const store = await tempStore('leaderboard');
  const { db } = store;
  const { project } = createProject(db, store.box, { name: 'Bench' }, NOW);
  const built = await buildLedger(store, project.id);
  // Members on the current board of the period (the data ends at NOW, so the current key is the latest).
  const rows = (period: (typeof PERIODS)[number]) => db.prepare(period === 'all' ? 'SELECT count(*) FROM members WHERE total_points_earned > 0'
    : `SELECT count(*) FROM members WHERE ${period}_board = (SELECT max(${period}_board) FROM members)`).pluck().get() as number;
  const boards = Object.fromEntries(PERIODS.map((period) => [period, {
    members: rows(period),
    top10: timed(300, () => leaderboard(db, project.id, { period, limit: 10 }, NOW)),
    top100: timed(300, () => leaderboard(db, project.id, { period, limit: 100 }, NOW)),
    // One member's rank in this period (counts everyone ahead of them on the board).
    memberRank: timed(300, (i) => memberRanks(db, project.id, `member-${1 + ((i * 7919) % MEMBERS)}`, period, NOW)),
  }]));
  // A member's rank in all four periods at once (GET /leaderboard/members/{externalId} without period).
  const memberRank = timed(300, (i) => memberRanks(db, project.id, `member-${1 + ((i * 7919) % MEMBERS)}`, undefined, NOW));
  store.close();
  return { transactions: TRANSACTIONS, members: MEMBERS, ...built, boards, memberRankAllPeriods: memberRank };
}

try {
  console.log(JSON.stringify({ plays: await playRate() }, null, 2));
  console.log(JSON.stringify({ leaderboard: await leaderboardLatency() }, null, 2));
} finally {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
