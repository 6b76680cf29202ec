// One measured step of `npm run bench:analytics`, in its own process (pinned by the parent). It
// prints one JSON line. The `awards` step loads the code of the tree it is given (this checkout,
// or an export of another commit), so both sides of the comparison run their own postToLedger.
//
//   migrate <db>                                   migration 0028 on a database at 0024: its backfill
//   orders <db> <projectId> <orders>               a store with orders (SQL), then every figure recounted (doctor --rebuild-figures)
//   read <db> <projectId> <now> <iterations>       the Overview of each range, the points report, doctor's check
//   awards <tree> <db> <projectId> <members> <batches>   CPU per award through the group committer, in batches of 50 and of 1
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

async function awardsStep(tree: string, path: string, projectId: string, members: number, batches: number) {
  const load = (file: string) => import(pathToFileURL(join(tree, file)).href);
  const { openStore } = await load('src/db/store.ts');
  const { GroupCommitter } = await load('src/db/group-commit.ts');
  const { adjustPoints } = await load('src/domain/ledger/ledger.ts');
  const store = await openStore({ path, masterKey: BENCH_MASTER_KEY });
  const { db } = store;
  const committer = new GroupCommitter(db);
  let n = 0;
  const award = () => {
    n++;
    const member = `member-${(n * 7919) % members}`;
    return committer.run(() => adjustPoints(db, projectId, member, { amount: 1 }, 'bench', new Date()));
  };
  const run = async (count: number, size: number) => {
    for (let done = 0; done < count; done += size) await Promise.all(Array.from({ length: size }, award));
  };
  await run(2_000, 50); // warm-up: V8 optimises, SQLite's cache fills
  const measure = async (count: number, size: number) => {
    const cpu = process.cpuUsage();
    await run(count, size);
    return (cpuMs(cpu) * 1000) / count;
  };
  const result = { batch50: await measure(batches * 50, 50), batch1: await measure(Math.max(100, batches * 2), 1) };
  store.close();
  return result;
}

const steps: Record<string, () => Promise<unknown>> = {
  migrate: () => migrateStep(args[0]!),
  orders: () => ordersStep(args[0]!, args[1]!, Number(args[2])),
  read: () => readStep(args[0]!, args[1]!, args[2]!, Number(args[3])),
  awards: () => awardsStep(args[0]!, args[1]!, args[2]!, Number(args[3]), Number(args[4])),
};

const step = steps[mode ?? ''];
if (!step) throw new Error(`unknown step "${mode}"; one of ${Object.keys(steps).join(', ')}`);
console.log(JSON.stringify(await step()));
