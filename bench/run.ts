// npm run bench: every server in its own process pinned to core 0, wrk (-t1) pinned to core 1,
// 127.0.0.1 only. For each run: req/s, p50, p99 and the server's CPU µs per request. The runs are
// a list of cases (CASES below); a new bench is one more entry. Then the targets as PASS/FAIL
// lines. See bench/README.md.
//
//   npm run bench -- --compare <commit> [--rounds 3] [--members 100000]
//                        instead: the same loads on a git worktree of <commit> and on this checkout,
//                        alternately, each beside a bare node:http server (bench/compare.ts)
//   BENCH_QUICK=1        smaller datasets and shorter runs: a whole run in under two minutes
//   BENCH_DURATION       seconds of measured load per run (default 10; quick 3)
//   BENCH_WARMUP         seconds of unmeasured load before each run (default 2; quick 1)
//   BENCH_CONNECTIONS    concurrent connections (default 50)
//   BENCH_ONLY           comma-separated case names to run (default: all)
//   BENCH_BUILD_LIMIT    seconds a dataset build may take before the bench gives up (default 600)
//   BENCH_CPU_PROF=dir   write a V8 CPU profile of each Punchcard server process into dir
//   BENCH_RESULTS        where to write the JSON results (default <os tmpdir>/punchcard-bench/latest.json)
//   BENCH_SECURE_DELETE=OFF  Punchcard servers run without PRAGMA secure_delete (to measure its cost)
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { bytesPerAward, type BytesPerAward } from './bytes.ts';
import { checkpointedSize, ledgerDataset, neighbourSearchDataset, searchDataset, type Dataset } from './dataset.ts';
import { searchPaths } from './profiles.ts';
import { ask, cleanUp, PINNED, startChild, stopChild, tempDirs, unexpectedExits, type Child } from './processes.ts';
import { buildWidget, describeSize, gzip, WIDGET_BUDGET_BYTES, WIDGET_SCRIPT } from '../widget/build.ts';
import { ensureWrk, runWrk, type Load, type LoadResult } from './wrk.ts';
import { compare, compareOptions } from './compare.ts';
import { CACHE_DIR, CONNECTIONS, DURATION, fmt, QUICK, setting, table, WARMUP } from './settings.ts';

// --- settings (the shared ones in bench/settings.ts) ---------------------------------------------

const BUILD_LIMIT = setting('BENCH_BUILD_LIMIT', 600, { min: 1 });
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',').map((s) => s.trim())) : null;
const CPU_PROF = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
const RESULTS = resolve(process.env.BENCH_RESULTS ?? join(CACHE_DIR, 'latest.json'));

/** Members of the award runs, and awards each already has in the large ledger. */
const LEDGER_MEMBERS = QUICK ? 10_000 : 100_000;
const HISTORY_PER_MEMBER = 100;
const SEARCH_MEMBERS = QUICK ? 100_000 : 1_000_000;
/** The neighbour project's members in the search-beside case. */
const NEIGHBOUR_MEMBERS = 50_000;
const BYTES_AWARDS = QUICK ? 5_000 : 20_000;
const AWARD_BODY = JSON.stringify({ amount: 1 });
/**
 * Read latency (history, search) is measured on one connection: the time a query takes, not the
 * queue in front of it (50 closed-loop connections wait 50 / (req/s) whatever the query costs).
 */
const READ_CONNECTIONS = 1;

/**
 * Throughput and steady-rate latency of the award are judged against commit 59ac853 measured beside
 * the checkout (`npm run bench -- --compare 59ac853`, bench/compare.ts), not here: ratios to bare
 * differ from machine to machine, and p99 at 50 closed-loop connections is wrk's bursts queuing.
 */
const TARGET = { atScale: 0.8, historyP99Ms: 5, searchP99Ms: 20, replicationCostPercent: 10, replicationLagSeconds: 2, neighbourSearchExtraMs: 1 };

// --- results -------------------------------------------------------------------------------------

interface Row extends LoadResult {
  id: string;
  name: string;
  notes: string[];
}

const rows: Row[] = [];
const facts: Record<string, unknown> = {};
let workDir = '';

const row = (id: string) => rows.find((r) => r.id === id);

function record(id: string, name: string, load: LoadResult, notes: string[] = []): Row {
  const r = { id, name, ...load, notes: [...notes, ...warnings(load)] };
  rows.push(r);
  console.log(`${name}: ${fmt(r.requestsPerSecond)} req/s, p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, ` +
    `server ${r.serverCpuUs ?? 'n/a'} µs/req`);
  for (const note of r.notes) console.log(`  ${note}`);
  return r;
}

const FOREIGN_LIMIT = 0.2; // cores

function warnings(r: LoadResult): string[] {
  const lines: string[] = [];
  if (r.non2xx !== 0 || r.errors !== 0) lines.push(`WARNING: ${r.non2xx} non-2xx answers and ${r.errors} socket errors; expected 0`);
  if (r.foreign && r.foreign.otherCores > FOREIGN_LIMIT) lines.push(`NOISE: other processes used ${r.foreign.otherCores} CPU cores during this run`);
  if (r.foreign && r.foreign.stealCores > FOREIGN_LIMIT) lines.push(`NOISE: the hypervisor took ${r.foreign.stealCores} cores (steal)`);
  return lines;
}

// --- servers -------------------------------------------------------------------------------------

type Server = Child<{ url: string; secretKey?: string }>;

/** Warm-up (unmeasured), then the measured run; `beforeMeasuring` runs in between. */
async function measure(
  server: Server, load: Load, beforeMeasuring?: () => Promise<unknown>, connections = CONNECTIONS,
): Promise<{ warm: LoadResult | null; run: LoadResult }> {
  const options = { connections, serverPid: server.process.pid!, workDir };
  const warm = WARMUP > 0 ? await runWrk(server.info.url, load, { ...options, seconds: WARMUP }) : null;
  await beforeMeasuring?.();
  const run = await runWrk(server.info.url, load, { ...options, seconds: DURATION });
  const exit = unexpectedExits.get(server.process);
  if (exit) throw new Error(`the server process exited during the run (${exit})`);
  return { warm, run };
}

async function withServer<T>(file: string, args: string[], use: (server: Server) => Promise<T>, profileName?: string): Promise<T> {
  const execArgv = CPU_PROF && profileName ? ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, profileName)}`] : [];
  const server = await startChild<{ url: string; secretKey?: string }>(file, args, execArgv);
  try {
    return await use(server);
  } finally {
    const code = await stopChild(server.process);
    if (code !== 0) console.warn(`WARNING: ${file} exited with ${code}`);
  }
}

const anyAuth = 'Bearer none';
const awardPaths = (members: number) => Array.from({ length: members }, (_, i) => `/api/v1/members/member-${i}/points`);

function reference(id: string, file: string, name: string) {
  return withServer(file, [], async (server) => {
    const { run } = await measure(server, { method: 'POST', paths: awardPaths(1), body: AWARD_BODY, authorization: anyAuth });
    record(id, name, run);
  });
}

interface GroupCommitStats {
  batches: number;
  writes: number;
  batchSize: { mean: number; p50: number; p99: number; max: number };
  workMsPerBatch: number;
  commitMs: { mean: number; p50: number; p99: number; max: number };
  eventLoopUtilization: number;
}

/** A private copy of a cached dataset, for runs that write to it. */
function copyOf(dataset: Dataset): string {
  const path = join(workDir, `copy-${process.hrtime.bigint()}.db`);
  copyFileSync(dataset.path, path);
  return path;
}

/**
 * The award route on `db` under load, then the ledger checks: transactions grew by the 2xx
 * answers plus at most one in-flight request per connection per wrk run (wrk stops without
 * waiting for them), checkLedger finds nothing (skipped above two million transactions: the
 * chain check reads them all), and the file's growth per award once checkpointed.
 */
async function awardRun(id: string, name: string, db: string, synchronous: 'FULL' | 'NORMAL', members: number, then?: (server: Server) => Promise<void>, extraArgs: string[] = []) {
  const count = () => {
    const d = new Database(db, { readonly: true });
    try {
      return d.prepare('SELECT max(id) FROM transactions').pluck().get() as number | null ?? 0;
    } finally {
      d.close();
    }
  };
  const sizeBefore = checkpointedSize(db);
  const before = count();
  let result!: { warm: LoadResult | null; run: LoadResult };
  let stats!: GroupCommitStats;
  await withServer('./punchcard-server.ts', [synchronous, db, 'write', workDir, ...extraArgs], async (server) => {
    const load: Load = { method: 'POST', paths: awardPaths(members), body: AWARD_BODY, authorization: `Bearer ${server.info.secretKey}` };
    result = await measure(server, load, () => ask(server.process, { type: 'reset' }));
    stats = (await ask<{ stats: GroupCommitStats }>(server.process, { type: 'stats' })).stats;
    await then?.(server);
  }, id);
  const written = count() - before;
  const acknowledged = (result.warm?.requests ?? 0) + result.run.requests;
  const slack = (result.warm ? 2 : 1) * CONNECTIONS;
  const grewBy = checkpointedSize(db) - sizeBefore;
  let audit = 'checkLedger skipped (over 2M transactions)';
  if (count() <= 2_000_000) {
    const d = new Database(db, { readonly: true });
    try {
      const violations = checkLedger(d).length;
      audit = violations === 0 ? 'checkLedger clean' : `checkLedger: ${violations} VIOLATIONS`;
    } finally {
      d.close();
    }
  }
  const consistent = written >= acknowledged && written <= acknowledged + slack && !audit.includes('VIOLATIONS');
  const r = record(id, name, result.run, [
    `group commit: ${fmt(stats.batches)} batches, mean ${stats.batchSize.mean} writes (p50 ${stats.batchSize.p50}, max ${stats.batchSize.max}); ` +
      `per batch ${stats.workMsPerBatch} ms writing, COMMIT ${stats.commitMs.mean} ms mean (p99 ${stats.commitMs.p99}); event loop ${Math.round(stats.eventLoopUtilization * 100)}% busy`,
    `ledger: ${fmt(written)} transactions for ${fmt(acknowledged)} 2xx answers (+ up to ${slack} in flight at wrk's stop) → ` +
      `${consistent ? 'consistent' : 'MISMATCH'}; ${audit}`,
    `file grew ${fmt(grewBy)} bytes: ${fmt(Math.round(grewBy / Math.max(written, 1)))} bytes per award`,
  ]);
  facts[`${id}.bytesPerAward`] = Math.round(grewBy / Math.max(written, 1));
  facts[`${id}.consistent`] = consistent;
  facts[`${id}.transactionsBefore`] = before;
  return r;
}

// --- the cases -----------------------------------------------------------------------------------

/** Benches of their own (bench/<name>.ts): each pins its server and load the same way and prints its figures. */
const STANDALONE: [name: string, what: string, args: string[]][] = [
  ['webhooks', 'webhook deliveries/s to a local receiver, enqueue-to-delivery p99, award route with one subscribed webhook vs none', []],
  ['events', 'POST /events matching one quest, with 1 and with 200 active quests', []],
  ['claims', 'reward claims per second on one reward with stock (contention)', []],
  ['games', 'game plays per second, the leaderboard\'s cost per award, leaderboard p99 at scale',
    QUICK ? ['--transactions', '1000000', '--members', '10000', '--plays', '2000'] : []],
  ['community', 'signed Discord community events at 1,000/s, open loop: p99, exact balances, the event log\'s bytes per event', QUICK ? ['--seconds', '3'] : []],
  ['search-projects', 'member search in a 1-member project in-process, alone and beside a 50,000-member project: CPU per search', []],
  ['secure-delete', 'awards and member erasure in-process, with and without secure_delete: CPU, erasure time, erased ids left in the file', []],
  ['erasure-sweep', 'the erasure sweep over 100,000 members in-process: write lock per merge step, award latency while it runs, erased values left', []],
];

function standalone(name: string, args: string[]): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL(`./${name}.ts`, import.meta.url)), ...args], { stdio: 'inherit' });
    child.once('error', fail);
    child.once('exit', (code) => (code === 0 ? done() : fail(new Error(`bench/${name}.ts exited with ${code}`))));
  });
}

interface Case {
  name: string;
  what: string;
  run: () => Promise<void>;
}

let emptyLedger: Dataset;
const ensureEmptyLedger = async () => (emptyLedger ??= await ledgerDataset(LEDGER_MEMBERS, 0, BUILD_LIMIT));

const CASES: Case[] = [
  {
    name: 'bare-first',
    what: 'bare node:http: read and parse the JSON body, fixed answer (first of two)',
    run: () => reference('bare-first', './bare-server.ts', 'bare node:http (first)'),
  },
  {
    name: 'h3',
    what: 'h3 floor: the same work through a minimal h3 app routed like the award route',
    run: () => reference('h3', './h3-server.ts', 'h3 floor'),
  },
  {
    name: 'award-skipped',
    what: 'the award route with its write skipped (HTTP, auth, body, validation, JSON; no SQLite)',
    run: async () => {
      const db = copyOf(await ensureEmptyLedger());
      await withServer('./punchcard-server.ts', ['FULL', db, 'no-write', workDir], async (server) => {
        const load: Load = { method: 'POST', paths: awardPaths(LEDGER_MEMBERS), body: AWARD_BODY, authorization: `Bearer ${server.info.secretKey}` };
        record('award-skipped', 'award, write skipped', (await measure(server, load)).run);
      }, 'award-skipped');
    },
  },
  {
    name: 'award-full',
    what: `the award route, synchronous=FULL, ${fmt(LEDGER_MEMBERS)} members and an empty ledger`,
    run: async () => void await awardRun('award-full', 'award FULL, empty ledger', copyOf(await ensureEmptyLedger()), 'FULL', LEDGER_MEMBERS),
  },
  {
    name: 'award-normal',
    what: 'the same under synchronous=NORMAL',
    run: async () => void await awardRun('award-normal', 'award NORMAL, empty ledger', copyOf(await ensureEmptyLedger()), 'NORMAL', LEDGER_MEMBERS),
  },
  {
    name: 'award-replicated',
    what: 'the award route, FULL, with Litestream replicating to a file:// replica; the lag at the end',
    run: async () => void await awardRun('award-replicated', 'award FULL, replicated (file://)', copyOf(await ensureEmptyLedger()), 'FULL', LEDGER_MEMBERS,
      async (server) => {
        const health = await (await fetch(`${server.info.url}/healthz`)).json() as { replication: { lagSeconds: number | null } };
        facts.replicationLagSeconds = health.replication.lagSeconds;
        console.log(`replication lag at the end of the run: ${health.replication.lagSeconds ?? 'unknown'} s`);
      }, ['replicate']),
  },
  {
    name: 'ledger-at-scale',
    what: `award FULL and history reads on ${fmt(LEDGER_MEMBERS)} members with ${fmt(LEDGER_MEMBERS * HISTORY_PER_MEMBER)} transactions`,
    run: async () => {
      const dataset = await ledgerDataset(LEDGER_MEMBERS, HISTORY_PER_MEMBER, BUILD_LIMIT);
      facts.ledgerBuildSeconds = dataset.buildSeconds;
      console.log(`dataset ${dataset.path}: ${dataset.buildSeconds ? `built in ${dataset.buildSeconds} s` : 'cached'}`);
      // The cached file is used in place (a copy would be over a gigabyte): each run appends its awards.
      await awardRun('award-scale', `award FULL, ${fmt(LEDGER_MEMBERS * HISTORY_PER_MEMBER)}+ transactions`, dataset.path, 'FULL', LEDGER_MEMBERS, async (server) => {
        const spread = Array.from({ length: 10_000 }, (_, i) => `/api/v1/members/member-${(i * 7919) % LEDGER_MEMBERS}/points?history=true&limit=20`);
        const load: Load = { method: 'GET', paths: spread, authorization: `Bearer ${server.info.secretKey}` };
        record('history-scale', 'history read (?history=true&limit=20), 1 connection', (await measure(server, load, undefined, READ_CONNECTIONS)).run);
      });
    },
  },
  {
    name: 'search',
    what: `member search over ${fmt(SEARCH_MEMBERS)} members: email, externalId and name fragments of 3+ characters, and a 2-character search`,
    run: async () => {
      const dataset = await searchDataset(SEARCH_MEMBERS, BUILD_LIMIT);
      facts.searchBuildSeconds = dataset.buildSeconds;
      console.log(`dataset ${dataset.path}: ${dataset.buildSeconds ? `built in ${dataset.buildSeconds} s` : 'cached'}`);
      const query = (text: string) => `/api/v1/members?search=${encodeURIComponent(text)}`;
      const realistic = searchPaths(SEARCH_MEMBERS);
      await withServer('./punchcard-server.ts', ['FULL', dataset.path, 'write', workDir], async (server) => {
        const authorization = `Bearer ${server.info.secretKey}`;
        record('search', 'search, 3+ characters, 1 connection', (await measure(server, { method: 'GET', paths: realistic, authorization }, undefined, READ_CONNECTIONS)).run,
          [`strings like "anna.garcia123", "012345", "Anna Garcia" (up to ${fmt(Math.round(SEARCH_MEMBERS / 1000))} matches)`]);
        record('search-2', 'search, 2 characters ("an"), 1 connection', (await measure(server, { method: 'GET', paths: [query('an')], authorization }, undefined, READ_CONNECTIONS)).run,
          ['shorter than a trigram: scans the project\'s members']);
      });
    },
  },
  {
    name: 'search-beside',
    what: `member search in a 1-member project, alone on the server and beside a project of ${fmt(NEIGHBOUR_MEMBERS)} members that match its searches too`,
    run: async () => {
      // Texts the one member holds; the neighbour's members hold them 25 (the name) to 50,000 times (the id's start).
      const texts = ['anna.garcia0', 'Anna Garcia', 'garcia', 'example.com', 'cust-00'];
      const paths = texts.map((text) => `/api/v1/members?search=${encodeURIComponent(text)}`);
      for (const neighbours of [0, NEIGHBOUR_MEMBERS]) {
        const dataset = await neighbourSearchDataset(neighbours, BUILD_LIMIT);
        await withServer('./punchcard-server.ts', ['FULL', copyOf(dataset), 'write', workDir], async (server) => {
          const authorization = `Bearer ${server.info.secretKey}`;
          const id = neighbours === 0 ? 'search-alone' : 'search-beside';
          record(id, `search in a 1-member project, ${neighbours === 0 ? 'alone' : `beside ${fmt(neighbours)} members`}, 1 connection`,
            (await measure(server, { method: 'GET', paths, authorization }, undefined, READ_CONNECTIONS)).run, [`texts ${texts.map((t) => `"${t}"`).join(', ')}`]);
        });
      }
    },
  },
  ...STANDALONE.map(([name, what, args]): Case => ({ name, what, run: () => standalone(name, args) })),
  {
    name: 'widget-size',
    what: `the widget script's size (budget ${WIDGET_BUDGET_BYTES / 1024} KB gzipped)`,
    run: async () => {
      const files = await buildWidget();
      facts.widgetGzipBytes = gzip(files.get(WIDGET_SCRIPT)!).length;
      console.log(describeSize(files));
    },
  },
  {
    name: 'bare-last',
    what: 'bare node:http again: the ceiling is the mean of the two',
    run: () => reference('bare-last', './bare-server.ts', 'bare node:http (last)'),
  },
  {
    name: 'bytes',
    what: `database bytes per award, in-process: schema before migration 0002 against now (${fmt(BYTES_AWARDS)} awards, 1,000 members)`,
    run: async () => {
      const measured: BytesPerAward[] = await bytesPerAward(1_000, BYTES_AWARDS, tempDirs);
      facts.bytes = measured;
      for (const b of measured) console.log(`bytes per award, ${b.schema}: ${fmt(b.bytesPerAward)}`);
    },
  },
];

// --- summary -------------------------------------------------------------------------------------

function bareMean(): number | null {
  const runs = [row('bare-first'), row('bare-last')].filter((r) => r !== undefined);
  return runs.length ? runs.reduce((sum, r) => sum + r.requestsPerSecond, 0) / runs.length : null;
}

/** Each target, or null when the cases it needs did not run. */
function targets(): [string, boolean][] {
  const checks: [string, boolean][] = [];
  const full = row('award-full');
  const clean = (r: Row) => r.non2xx === 0 && r.errors === 0;
  const scale = row('award-scale');
  if (full && scale) {
    const ratio = scale.requestsPerSecond / full.requestsPerSecond;
    checks.push([`award at ${fmt(LEDGER_MEMBERS * HISTORY_PER_MEMBER)}+ transactions vs empty ledger ${ratio.toFixed(2)}× ` +
      `(p99 ${scale.latencyMs.p99} vs ${full.latencyMs.p99} ms; target >= ${TARGET.atScale}×)`, ratio >= TARGET.atScale && clean(scale)]);
  }
  const history = row('history-scale');
  if (history) checks.push([`history read p99 ${history.latencyMs.p99} ms (target < ${TARGET.historyP99Ms} ms)`, history.latencyMs.p99 < TARGET.historyP99Ms && clean(history)]);
  const search = row('search');
  if (search) checks.push([`member search p99 over ${fmt(SEARCH_MEMBERS)} members ${search.latencyMs.p99} ms (target < ${TARGET.searchP99Ms} ms)`, search.latencyMs.p99 < TARGET.searchP99Ms && clean(search)]);
  const alone = row('search-alone');
  const beside = row('search-beside');
  if (alone && beside) {
    const extra = Math.round((beside.latencyMs.p99 - alone.latencyMs.p99) * 100) / 100;
    checks.push([`search in a 1-member project beside ${fmt(NEIGHBOUR_MEMBERS)} members: p99 ${beside.latencyMs.p99} ms against ${alone.latencyMs.p99} ms alone, `
      + `${beside.serverCpuUs ?? 'n/a'} against ${alone.serverCpuUs ?? 'n/a'} µs of CPU (target: p99 within ${TARGET.neighbourSearchExtraMs} ms)`,
    extra <= TARGET.neighbourSearchExtraMs && clean(alone) && clean(beside)]);
  }
  const replicated = row('award-replicated');
  if (full && replicated) {
    const cost = Math.round(100 - (100 * replicated.requestsPerSecond) / full.requestsPerSecond);
    checks.push([`replication costs the award route ${cost}% (target < ${TARGET.replicationCostPercent}%)`, cost < TARGET.replicationCostPercent && clean(replicated)]);
    const lag = facts.replicationLagSeconds as number | null;
    checks.push([`replication lag at the end ${lag ?? 'unknown'} s (target < ${TARGET.replicationLagSeconds} s)`, lag !== null && lag < TARGET.replicationLagSeconds]);
  }
  if (facts.widgetGzipBytes !== undefined) {
    checks.push([`widget ${fmt(facts.widgetGzipBytes as number)} bytes gzipped (budget ${fmt(WIDGET_BUDGET_BYTES)})`, (facts.widgetGzipBytes as number) <= WIDGET_BUDGET_BYTES]);
  }
  const bytes = facts.bytes as BytesPerAward[] | undefined;
  if (bytes) checks.push([`bytes per award ${fmt(bytes[1]!.bytesPerAward)}, before migration 0002 ${fmt(bytes[0]!.bytesPerAward)} (target: lower)`, bytes[1]!.bytesPerAward < bytes[0]!.bytesPerAward]);
  for (const id of ['award-full', 'award-normal', 'award-replicated', 'award-scale']) {
    if (facts[`${id}.consistent`] !== undefined) checks.push([`${id}: transactions match the 2xx answers, ledger clean`, facts[`${id}.consistent`] === true]);
  }
  if (rows.length) checks.push(['no non-2xx answers and no socket errors in any run', rows.every(clean)]);
  return checks;
}

async function main(): Promise<number> {
  const started = new Date();
  // Whatever happens, stop well after the longest expected run (dataset builds included).
  const budgetMs = ((WARMUP + DURATION + 20) * 14 + 2 * BUILD_LIMIT + 300) * 1000;
  setTimeout(() => {
    console.error(`bench: still running after ${Math.round(budgetMs / 1000)} s; giving up`);
    cleanUp();
    process.exit(2);
  }, budgetMs).unref();
  ensureWrk();
  mkdirSync(CACHE_DIR, { recursive: true });
  workDir = mkdtempSync(join(tmpdir(), 'punchcard-bench-run-'));
  tempDirs.add(workDir);
  const cases = CASES.filter((c) => !ONLY || ONLY.has(c.name));
  console.log(`Punchcard bench${QUICK ? ' (QUICK)' : ''} — node ${process.version}, ${availableParallelism()} × ${cpus()[0]?.model.trim() ?? 'CPU'}`);
  console.log(PINNED
    ? `servers pinned to core 0, wrk -t1 -c${CONNECTIONS} pinned to core 1; ${DURATION} s per run after ${WARMUP} s warm-up; 127.0.0.1`
    : `WARNING: not pinned (needs Linux and 2 cores): servers and wrk share the CPU; wrk -t1 -c${CONNECTIONS}, ${DURATION} s per run`);
  console.log(`cases: ${cases.map((c) => c.name).join(', ')}\n`);
  for (const c of cases) {
    console.log(`--- ${c.name}: ${c.what}`);
    await c.run();
  }

  const bare = bareMean();
  console.log('\n=== Summary ===');
  console.log(table(['run', 'req/s', 'p50 ms', 'p99 ms', '% of bare', 'server CPU µs/req', 'other CPU'], rows.map((r) => [
    r.name, fmt(r.requestsPerSecond), String(r.latencyMs.p50), String(r.latencyMs.p99),
    bare ? `${Math.round((100 * r.requestsPerSecond) / bare)}%` : 'n/a', String(r.serverCpuUs ?? 'n/a'),
    r.foreign ? `${r.foreign.otherCores} cores` : 'n/a',
  ])));
  const first = row('bare-first');
  const last = row('bare-last');
  if (first && last && bare) {
    console.log(`\nbare: the mean of its two runs, ${fmt(Math.round(bare))} req/s; they differ by ` +
      `${Math.round((100 * Math.abs(first.requestsPerSecond - last.requestsPerSecond)) / bare)}% (over 10%: the machine's speed changed during the bench).`);
  }
  if (facts.ledgerBuildSeconds !== undefined || facts.searchBuildSeconds !== undefined) {
    console.log(`datasets: ledger ${facts.ledgerBuildSeconds ? `built in ${facts.ledgerBuildSeconds} s` : 'cached'}, ` +
      `search ${facts.searchBuildSeconds ? `built in ${facts.searchBuildSeconds} s` : 'cached'} (in ${CACHE_DIR})`);
  }
  const full = row('award-full');
  if (bare && full) {
    console.log(`\naward/bare req/s (FULL) ${(full.requestsPerSecond / bare).toFixed(2)}; its target is against 59ac853: npm run bench -- --compare 59ac853`);
  }
  const checks = targets();
  console.log('');
  for (const [label, pass] of checks) console.log(`${pass ? 'PASS' : 'FAIL'}  ${label}`);
  const noisy = rows.filter((r) => r.foreign && r.foreign.otherCores > FOREIGN_LIMIT);
  if (noisy.length) console.log(`NOTE  other processes competed for the CPU during: ${noisy.map((r) => r.name).join('; ')}. Read CPU µs/req; rerun on an idle machine.`);

  mkdirSync(dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, `${JSON.stringify({
    started: started.toISOString(), finished: new Date().toISOString(), node: process.version, cpus: availableParallelism(), pinned: PINNED,
    settings: { quick: QUICK, durationSeconds: DURATION, warmupSeconds: WARMUP, connections: CONNECTIONS, ledgerMembers: LEDGER_MEMBERS,
      transactionsPerMember: HISTORY_PER_MEMBER, searchMembers: SEARCH_MEMBERS },
    rows, facts, checks: checks.map(([check, pass]) => ({ check, pass })),
  }, null, 2)}\n`);
  console.log(`\nResults written to ${RESULTS}`);
  return checks.every(([, pass]) => pass) ? 0 : 1;
}

const comparison = compareOptions(process.argv.slice(2));
(comparison ? compare(comparison) : main()).then((code) => {
  cleanUp();
  process.exit(code);
}, (error: unknown) => {
  console.error('bench failed:', error);
  cleanUp();
  process.exit(2);
});
