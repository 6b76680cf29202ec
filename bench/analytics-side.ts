// One measured step of `npm run bench:analytics`, in its own process (pinned by the parent). It
// prints one JSON line. The `awards` step loads the code of both trees it is given (an export of
// another commit, and this checkout), so each side runs its own postToLedger.
//
//   migrate <db>                                   migration 0034 on a database at the schema before it: its backfill
//   orders <db> <projectId> <orders>               a store with orders (SQL), then every figure recounted (doctor --rebuild-figures)
//   read <db> <projectId> <now> <iterations>       the Overview of each range, the points report, doctor's check
//   awards <base tree> <base db> <tree> <db> <projectId> <members> <turns>
//                                                  CPU per award through each tree's group committer, in batches of 50 and of 1
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BENCH_MASTER_KEY } from './settings.ts';

const [mode, ...args] = process.argv.slice(2);

const cpuMs = (since: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1000;
};

function quantiles(samples: number[]): { p50: number; p95: number; max: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
  return { p50: at(0.5), p95: at(0.95), max: sorted.at(-1)! };
}

async function migrateStep(path: string) {
  const { openDatabase } = await import('../src/db/connection.ts');
  const { migrate, migrationsFromDir } = await import('../src/db/migrations.ts');
  const db = openDatabase(path);
  const started = performance.now();
  const cpu = process.cpuUsage();
  const applied = migrate(db, migrationsFromDir());
  const result = { applied: applied.map((m) => m.version), ms: performance.now() - started, cpuMs: cpuMs(cpu) };
  db.close();
  return result;
}

/** A connected store and `orders` orders over the ledger's time (a third by guests; a quarter of the members order), then a full recount. */
async function ordersStep(path: string, projectId: string, orders: number) {
  const { openStore } = await import('../src/db/store.ts');
  const { rebuildFigures } = await import('../src/domain/analytics/recount.ts');
  const { numbers } = await import('./dataset.ts');
  const store = await openStore({ path, masterKey: BENCH_MASTER_KEY });
  const { db } = store;
  const range = db.prepare('SELECT min(created_at) AS first, max(created_at) AS last FROM transactions').get() as { first: string; last: string };
  const members = db.prepare('SELECT count(*) FROM members').pluck().get() as number;
  db.transaction(() => {
    db.prepare(`INSERT INTO commerce_stores (id, project_id, site_url, organization_id, consumer_key, consumer_secret, webhook_secret, created_at, updated_at)
      VALUES ('store_bench', ?, 'https://shop.example', 'org', 'x', 'x', 'x', ?, ?)`).run(projectId, range.first, range.first);
    const step = (Date.parse(range.last) - Date.parse(range.first)) / 1000 / orders;
    db.prepare(`${numbers(orders)} INSERT INTO commerce_orders (store_id, order_id, member_id, status, version, awarded, created_at, updated_at,
        total_cents, currency, shopper, revenue_cents)
      SELECT 'store_bench', i, iif(i % 3 = 0, NULL, 1 + (i * 7919) % (@members / 4)), 'completed', '', 0, at, at, 1000 + i % 9000, 'EUR',
        iif(i % 3 = 0, 'g' || (i % (@orders / 6)), 'm' || (1 + (i * 7919) % (@members / 4))), 1000 + i % 9000
      FROM (SELECT i, strftime('%Y-%m-%dT%H:%M:%fZ', unixepoch(@first) + i * @step, 'unixepoch') AS at FROM n)`)
      .run({ members, orders, first: range.first, step });
  })();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const rebuilt = rebuildFigures(db);
  const result = { orders, rows: rebuilt.rows, ms: performance.now() - started, cpuMs: cpuMs(cpu) };
  store.close();
  return result;
}

async function readStep(path: string, projectId: string, nowIso: string, iterations: number) {
  const { openStore } = await import('../src/db/store.ts');
  const { readSnapshot } = await import('../src/db/transaction.ts');
  const { OVERVIEW_RANGES, overview } = await import('../src/domain/analytics/overview.ts');
  const { pointsReport } = await import('../src/domain/analytics/points-report.ts');
  const { checkFigures } = await import('../src/domain/analytics/recount.ts');
  const { shiftDate } = await import('../src/shared/local-dates.ts');
  const store = await openStore({ path, masterKey: BENCH_MASTER_KEY });
  const { db } = store;
  const now = new Date(nowIso);
  const time = (work: () => unknown) => {
    for (let i = 0; i < 5; i++) work();
    const samples: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const started = performance.now();
      work();
      samples.push(performance.now() - started);
    }
    return quantiles(samples);
  };
  const ranges = Object.fromEntries(OVERVIEW_RANGES.map((range) => [range, time(() => readSnapshot(db, () => overview(db, projectId, range, now)))]));
  const sample = overview(db, projectId, 365, now);
  const to = sample.to;
  const report = time(() => readSnapshot(db, () => pointsReport(db, projectId, shiftDate(to, -364), to)));
  const started = performance.now();
  const check = checkFigures(db);
  const result = {
    ranges, pointsReport365: report, checkMs: performance.now() - started, inStep: check.problems.length === 0 && check.memberDays === 0,
    totals: sample.totals, commerce: sample.commerce, topRewards: sample.topRewards.length, earningSources: sample.earningSources.length,
  };
  store.close();
  return result;
}

interface AwardSide {
  store: { db: { pragma(sql: string): unknown }; close(): void };
  path: string;
  award: (member: string) => Promise<unknown>;
}

/** A tree's own store, group committer and adjustPoints on `path` (its modules, not this checkout's). */
async function awardSide(tree: string, path: string, projectId: string): Promise<AwardSide> {
  const load = (file: string) => import(pathToFileURL(join(tree, file)).href);
  const { openStore } = await load('src/db/store.ts');
  const { GroupCommitter } = await load('src/db/group-commit.ts');
  const { adjustPoints } = await load('src/domain/ledger/ledger.ts');
  const store = await openStore({ path, masterKey: BENCH_MASTER_KEY });
  const committer = new GroupCommitter(store.db);
  return { store, path, award: (member) => committer.run(() => adjustPoints(store.db, projectId, member, { amount: 1 }, 'bench', new Date())) };
}

/**
 * Both trees in this one process, each with its own modules and database copy, taking turns a
 * batch at a time, `turns` times per batch size. What other processes do to the core (and its
 * caches) then falls on both alike. Reports each side's CPU per award, and the pages an award adds
 * to the WAL.
 */
async function awardsStep(baseTree: string, baseDb: string, tree: string, db: string, projectId: string, members: number, turns: number) {
  const sides = [await awardSide(baseTree, baseDb, projectId), await awardSide(tree, db, projectId)];
  let n = 0;
  const batch = (side: AwardSide, size: number) => Promise.all(Array.from({ length: size }, () => side.award(`member-${(++n * 7919) % members}`)));
  for (let i = 0; i < 40; i++) for (const side of sides) await batch(side, 50); // warm-up: V8 optimises, SQLite's caches fill
  /**
   * Each side's CPU per award over all turns, and the median of B's CPU over A's in the same turn:
   * a collection or a neighbour's burst lands on one side's turn, and the median of the pairs
   * leaves such a turn out where a total keeps it.
   */
  const measure = async (size: number, count: number) => {
    const turnsCpu: [number, number][] = [];
    for (let turn = 0; turn < count; turn++) {
      const used: [number, number] = [0, 0];
      // A then B, then B then A: neither always runs on the caches the other just filled.
      for (const i of turn % 2 === 0 ? [0, 1] : [1, 0]) {
        const cpu = process.cpuUsage();
        await batch(sides[i]!, size);
        used[i as 0 | 1] = cpuMs(cpu);
      }
      turnsCpu.push(used);
    }
    const total = (i: 0 | 1) => (turnsCpu.reduce((sum, used) => sum + used[i], 0) * 1000) / (size * count);
    const ratios = turnsCpu.map(([a, b]) => b / a).sort((x, y) => x - y);
    return { base: total(0), checkout: total(1), pairedRatio: ratios[Math.floor(ratios.length / 2)]! };
  };
  const fifty = await measure(50, turns);
  const one = await measure(1, turns * 4);
  // Pages each award adds to the WAL, from an emptied WAL (4 KiB pages, 24-byte frame headers).
  const pages = async (side: AwardSide, size: number, count: number) => {
    side.store.db.pragma('wal_checkpoint(TRUNCATE)');
    for (let i = 0; i < count; i++) await batch(side, size);
    return Math.max(0, statSync(`${side.path}-wal`).size - 32) / (4096 + 24) / (size * count);
  };
  const walPages = [];
  for (const side of sides) walPages.push({ batch50: await pages(side, 50, 10), batch1: await pages(side, 1, 100) });
  for (const side of sides) side.store.close();
  return {
    base: { batch50: fifty.base, batch1: one.base, pages: walPages[0]! }, checkout: { batch50: fifty.checkout, batch1: one.checkout, pages: walPages[1]! },
    pairedRatio: { batch50: fifty.pairedRatio, batch1: one.pairedRatio },
  };
}

const steps: Record<string, () => Promise<unknown>> = {
  migrate: () => migrateStep(args[0]!),
  orders: () => ordersStep(args[0]!, args[1]!, Number(args[2])),
  read: () => readStep(args[0]!, args[1]!, args[2]!, Number(args[3])),
  awards: () => awardsStep(args[0]!, args[1]!, args[2]!, args[3]!, args[4]!, Number(args[5]), Number(args[6])),
};

const step = steps[mode ?? ''];
if (!step) throw new Error(`unknown step "${mode}"; one of ${Object.keys(steps).join(', ')}`);
console.log(JSON.stringify(await step()));
