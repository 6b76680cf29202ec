// npm run bench -- --compare <commit> [--rounds 3] [--members 100000]
//
// The same load against a git worktree of <commit> (A) and against this checkout (B), alternately:
// each round runs A's slot, then B's. A slot measures a bare node:http POST server
// (bench/bare-server.ts) with the same loads first, then the side's own server on a fresh copy of
// the side's seeded database. Servers are pinned to core 0, wrk and the open-loop client to core 1.
// Each figure is read against the bare server of its own slot, so a machine that slows down
// between slots moves the figure and its reference together. Per figure it prints each side's
// median over the rounds (and range), its ratio to bare (throughput) or difference from bare
// (open-loop p99), the factor B/A (the median of the rounds' factors), and the server's CPU per
// request; then the issue's targets as reached / not reached.
//
//   BENCH_DURATION, BENCH_WARMUP, BENCH_CONNECTIONS   as for the other cases (bench/settings.ts)
//   BENCH_RESULTS   where the JSON results go (default <tmpdir>/punchcard-bench/compare-latest.json)
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkoutSide, commitSide, copySeed, seededDatabase, startSide, type Seed, type Side } from './compare-side.ts';
import { runOpenLoop, type OpenLoopResult } from './open-loop.ts';
import { stopServer } from './pinned-server.ts';
import { PINNED, startChild, stopChild, tempDirs } from './processes.ts';
import { searchPaths, searchProfile } from './profiles.ts';
import { CACHE_DIR, CONNECTIONS, DURATION, fmt, QUICK, table, WARMUP } from './settings.ts';
import { ensureWrk, runWrk, type Load, type LoadResult } from './wrk.ts';

export interface CompareOptions {
  commit: string;
  rounds: number;
  members: number;
}

/** `--compare <commit> [--rounds n] [--members n]` from the command line, or null without --compare. */
export function compareOptions(argv: string[]): CompareOptions | null {
  const value = (name: string) => {
    const at = argv.indexOf(`--${name}`);
    if (at === -1) return undefined;
    const given = argv[at + 1];
    if (given === undefined || given.startsWith('--')) throw new Error(`--${name} needs a value`);
    return given;
  };
  const commit = value('compare');
  if (commit === undefined) return null;
  const count = (name: string, fallback: number, min: number) => {
    const n = Number(value(name) ?? fallback);
    if (!Number.isInteger(n) || n < min) throw new Error(`--${name} must be a whole number >= ${min}`);
    return n;
  };
  return { commit, rounds: count('rounds', 3, 1), members: count('members', QUICK ? 10_000 : 100_000, 1_000) };
}

const RATES = [100, 1_000];
const RESULTS = resolve(process.env.BENCH_RESULTS ?? join(CACHE_DIR, 'compare-latest.json'));

interface Slot {
  round: number;
  side: 'A' | 'B';
  bare: { throughput: LoadResult; steady: OpenLoopResult[] };
  award: LoadResult;
  /** Open-loop awards, one per RATES entry. */
  steady: OpenLoopResult[];
  /** Open-loop awards from the moment the server printed its URL (issue 31, item 10). */
  afterStart: OpenLoopResult;
  create: LoadResult;
  search: LoadResult;
  /** Null on a tree without the route. */
  rank: LoadResult | null;
}

let workDir = '';
const uniqueRun = () => randomBytes(4).toString('hex');

/** Warm-up, then the measured wrk run. `{run}` in the body becomes a new value for each, so created rows never repeat. */
async function closedLoop(url: string, serverPid: number, load: Load, connections: number): Promise<LoadResult> {
  const options = { connections, serverPid, workDir };
  const fresh = () => ({ ...load, body: load.body?.replaceAll('{run}', uniqueRun()) });
  if (WARMUP > 0) await runWrk(url, fresh(), { ...options, seconds: WARMUP });
  return runWrk(url, fresh(), { ...options, seconds: DURATION });
}

async function steady(url: string, serverPid: number, load: Load): Promise<OpenLoopResult[]> {
  const results: OpenLoopResult[] = [];
  for (const rate of RATES) results.push(await runOpenLoop({ ...load, url, rate, warmupSeconds: Math.max(WARMUP, 1), seconds: DURATION, serverPid }));
  return results;
}

/** Awards sent from the moment a server printed its URL, as after a restart under traffic. */
const AFTER_START = { rate: 200, seconds: 3 };

/** Members in an order that spreads the requests over the whole table. */
const spread = (members: number, path: (externalId: string) => string) =>
  Array.from({ length: members }, (_, n) => path(searchProfile(1 + ((n * 7919) % members)).externalId));

const awardLoad = (members: number, authorization: string): Load =>
  ({ method: 'POST', paths: spread(members, (id) => `/api/v1/members/${id}/points`), body: JSON.stringify({ amount: 1 }), authorization });

const createLoad = (authorization: string): Load => ({
  method: 'POST', paths: ['/api/v1/members'], authorization,
  body: JSON.stringify({ externalId: 'new-{run}-{n}', email: 'new.{run}.{n}@example.com', name: 'New Member {n}' }),
});

/** Whether the server has the route: an older tree answers 404 for it, and the member exists. */
async function hasRoute(url: string, authorization: string, path: string): Promise<boolean> {
  const res = await fetch(`${url}${path}`, { headers: { authorization } });
  await res.arrayBuffer();
  return res.status !== 404;
}

async function runSlot(round: number, label: 'A' | 'B', side: Side, seed: Seed): Promise<Slot> {
  const bareServer = await startChild<{ url: string }>('./bare-server.ts', []);
  let bare: Slot['bare'];
  try {
    const { url } = bareServer.info;
    const pid = bareServer.process.pid!;
    bare = { throughput: await closedLoop(url, pid, awardLoad(seed.members, 'Bearer none'), CONNECTIONS), steady: await steady(url, pid, awardLoad(seed.members, 'Bearer none')) };
  } finally {
    await stopChild(bareServer.process);
  }
  const dir = join(workDir, `round${round}-${label}`);
  const server = await startSide(side, copySeed(seed, dir));
  try {
    const { url, pid } = server;
    const authorization = `Bearer ${seed.secretKey}`;
    // First, while the server is cold: what the requests right after a restart see.
    const afterStart = await runOpenLoop({ ...awardLoad(seed.members, authorization), url, rate: AFTER_START.rate, warmupSeconds: 0, seconds: AFTER_START.seconds, serverPid: pid });
    const search = await closedLoop(url, pid, { method: 'GET', paths: searchPaths(seed.members), authorization }, 1);
    const rankPaths = spread(seed.members, (id) => `/api/v1/leaderboard/members/${id}`);
    const rank = await hasRoute(url, authorization, rankPaths[0]!)
      ? await closedLoop(url, pid, { method: 'GET', paths: rankPaths, authorization }, 1)
      : null;
    const awards = await steady(url, pid, awardLoad(seed.members, authorization));
    const award = await closedLoop(url, pid, awardLoad(seed.members, authorization), CONNECTIONS);
    const create = await closedLoop(url, pid, createLoad(authorization), CONNECTIONS);
    return { round, side: label, bare, award, steady: awards, afterStart, create, search, rank };
  } finally {
    await stopServer(server);
    rmSync(dir, { recursive: true, force: true });
  }
}

// --- figures -------------------------------------------------------------------------------------

interface Figure {
  name: string;
  unit: 'req/s' | 'ms';
  value: (s: Slot) => number | null;
  cpu: (s: Slot) => number | null;
  /** Read against the slot's bare server: throughput as a ratio, open-loop p99 as a difference. */
  bare?: { kind: 'ratio' | 'minus'; value: (s: Slot) => number };
  /** The issue's target, on the factor B/A or on B's own reading. */
  target?: { text: string; met: (summary: Summary) => boolean | null };
}

interface Summary {
  a: number | null;
  aVsBare: number | null;
  b: number | null;
  bVsBare: number | null;
  factor: number | null;
}

const median = (xs: number[]) => {
  if (xs.length === 0) return null;
  const sorted = [...xs].sort((x, y) => x - y);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const present = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null && Number.isFinite(x));

function vsBare(figure: Figure, s: Slot): number | null {
  const value = figure.value(s);
  if (value === null || !figure.bare) return null;
  const bare = figure.bare.value(s);
  return figure.bare.kind === 'ratio' ? value / bare : value - bare;
}

/** What B/A compares: throughput against its slot's bare server, latency as measured. */
const comparable = (figure: Figure, s: Slot) => (figure.bare?.kind === 'ratio' ? vsBare(figure, s) : figure.value(s));

function summarise(figure: Figure, slots: Slot[]): Summary {
  const of = (side: 'A' | 'B') => slots.filter((s) => s.side === side);
  const factors = present(of('B').map((b) => {
    const a = of('A').find((s) => s.round === b.round);
    const x = a ? comparable(figure, a) : null;
    const y = comparable(figure, b);
    return x && y !== null ? y / x : null;
  }));
  return {
    a: median(present(of('A').map(figure.value))),
    aVsBare: median(present(of('A').map((s) => vsBare(figure, s)))),
    b: median(present(of('B').map(figure.value))),
    bVsBare: median(present(of('B').map((s) => vsBare(figure, s)))),
    factor: median(factors),
  };
}

function figures(members: number): Figure[] {
  const throughput = (s: Slot) => s.bare.throughput.requestsPerSecond;
  return [
    {
      name: `award req/s (wrk, ${CONNECTIONS} connections)`, unit: 'req/s', value: (s) => s.award.requestsPerSecond, cpu: (s) => s.award.serverCpuUs,
      bare: { kind: 'ratio', value: throughput },
      target: { text: 'award throughput / bare: B/A >= 1.1', met: (m) => (m.factor === null ? null : m.factor >= 1.1) },
    },
    ...RATES.map((rate, i): Figure => ({
      name: `award p99 at ${fmt(rate)}/s (open loop)`, unit: 'ms', value: (s) => s.steady[i]!.latencyMs.p99, cpu: (s) => s.steady[i]!.serverCpuUs,
      bare: { kind: 'minus', value: (s) => s.bare.steady[i]!.latencyMs.p99 },
      target: { text: `award p99 at ${fmt(rate)}/s minus bare's: B <= +5 ms`, met: (m) => (m.bVsBare === null ? null : m.bVsBare <= 5) },
    })),
    {
      name: `award p99 in the first ${AFTER_START.seconds} s after start at ${AFTER_START.rate}/s`, unit: 'ms', value: (s) => s.afterStart.latencyMs.p99, cpu: (s) => s.afterStart.serverCpuUs,
      target: { text: `award p99 in the first ${AFTER_START.seconds} s after start: B <= 100 ms`, met: (m) => (m.b === null ? null : m.b <= 100) },
    },
    {
      name: `member creation req/s (wrk, ${CONNECTIONS} connections)`, unit: 'req/s', value: (s) => s.create.requestsPerSecond, cpu: (s) => s.create.serverCpuUs,
      bare: { kind: 'ratio', value: throughput },
      target: { text: 'member creation / bare: B/A >= 0.9', met: (m) => (m.factor === null ? null : m.factor >= 0.9) },
    },
    {
      name: `member search p99 (1 connection, ${fmt(members)} members)`, unit: 'ms', value: (s) => s.search.latencyMs.p99, cpu: (s) => s.search.serverCpuUs,
      target: { text: 'member search p99: B < 20 ms', met: (m) => (m.b === null ? null : m.b < 20) },
    },
    {
      name: `member rank p99 (1 connection, ${fmt(members)} members)`, unit: 'ms', value: (s) => s.rank?.latencyMs.p99 ?? null, cpu: (s) => s.rank?.serverCpuUs ?? null,
      target: { text: 'member rank p99: B < 5 ms', met: (m) => (m.b === null ? null : m.b < 5) },
    },
    { name: 'bare node:http POST req/s (wrk)', unit: 'req/s', value: throughput, cpu: (s) => s.bare.throughput.serverCpuUs },
    ...RATES.map((rate, i): Figure => ({
      name: `bare node:http p99 at ${fmt(rate)}/s (open loop)`, unit: 'ms', value: (s) => s.bare.steady[i]!.latencyMs.p99, cpu: (s) => s.bare.steady[i]!.serverCpuUs,
    })),
  ];
}

// --- printing ------------------------------------------------------------------------------------

const runsOf = (s: Slot): (LoadResult | OpenLoopResult)[] =>
  [s.bare.throughput, ...s.bare.steady, s.afterStart, s.search, ...(s.rank ? [s.rank] : []), ...s.steady, s.award, s.create];

const show = (unit: Figure['unit'], n: number | null) =>
  n === null ? '-' : unit === 'req/s' ? fmt(Math.round(n)) : `${fmt(Math.round(n * 100) / 100)} ms`;
const showVsBare = (figure: Figure, n: number | null) =>
  n === null || !figure.bare ? '' : figure.bare.kind === 'ratio' ? n.toFixed(3) : `${n >= 0 ? '+' : ''}${n.toFixed(2)} ms`;

function range(figure: Figure, slots: Slot[]): string {
  const values = present(slots.map(figure.value));
  if (values.length < 2) return '';
  const bound = (n: number) => (figure.unit === 'req/s' ? fmt(Math.round(n)) : fmt(Math.round(n * 10) / 10));
  return ` (${bound(Math.min(...values))}–${bound(Math.max(...values))})`;
}

function slotLine(slot: Slot, label: string, all: Figure[]): string {
  const parts = all.slice(0, 6).map((figure) => {
    const value = figure.value(slot);
    const cpu = figure.cpu(slot);
    const against = showVsBare(figure, vsBare(figure, slot));
    return `${figure.name.replace(/ \(.*\)$/, '')} ${show(figure.unit, value)}${against ? ` [${against}]` : ''}${cpu === null || value === null ? '' : ` ${cpu} µs`}`;
  });
  const runs = runsOf(slot);
  const other = Math.max(...runs.map((r) => r.foreign?.otherCores ?? 0));
  const failed = runs.reduce((n, r) => n + r.non2xx + r.errors, 0);
  return `round ${slot.round} ${slot.side} ${label}: bare ${fmt(slot.bare.throughput.requestsPerSecond)} req/s; ${parts.join('; ')}; ` +
    `other processes up to ${other} cores${failed ? `; WARNING: ${failed} failed requests` : ''}`;
}

export async function compare(options: CompareOptions): Promise<number> {
  ensureWrk();
  const root = fileURLToPath(new URL('..', import.meta.url));
  const a = commitSide(root, options.commit);
  const b = checkoutSide(root);
  workDir = mkdtempSync(join(tmpdir(), 'punchcard-bench-compare-'));
  tempDirs.add(workDir);
  const seeds = { A: await seededDatabase(a, options.members, workDir), B: await seededDatabase(b, options.members, workDir) };
  const sides = { A: a, B: b };
  console.log(`\nPunchcard comparison — A ${a.label}, B ${b.label}; node ${process.version}, ${availableParallelism()} × ${cpus()[0]?.model.trim() ?? 'CPU'}`);
  console.log(PINNED
    ? `servers pinned to core 0, load (wrk -t1, open-loop client) to core 1; ${options.rounds} rounds of A then B; ${DURATION} s per run after ${WARMUP} s warm-up`
    : 'WARNING: not pinned (needs Linux and 2 cores): servers and load share the CPU');
  const all = figures(options.members);
  const slots: Slot[] = [];
  for (let round = 1; round <= options.rounds; round++) {
    for (const label of ['A', 'B'] as const) {
      const slot = await runSlot(round, label, sides[label], seeds[label]);
      slots.push(slot);
      console.log(slotLine(slot, sides[label].label, all));
    }
  }

  const summaries = all.map((figure) => summarise(figure, slots));
  const cpu = (figure: Figure, side: 'A' | 'B') => median(present(slots.filter((s) => s.side === side && figure.value(s) !== null).map(figure.cpu)));
  console.log(`\n=== A ${a.label} against B ${b.label}: medians of ${options.rounds} rounds ===`);
  console.log(table(['figure', 'A', 'A vs bare', 'B', 'B vs bare', 'B/A', 'CPU µs/req A', 'CPU µs/req B'], all.map((figure, i) => {
    const m = summaries[i]!;
    return [figure.name,
      show(figure.unit, m.a) + range(figure, slots.filter((s) => s.side === 'A')), showVsBare(figure, m.aVsBare),
      show(figure.unit, m.b) + range(figure, slots.filter((s) => s.side === 'B')), showVsBare(figure, m.bVsBare),
      m.factor === null ? '-' : m.factor.toFixed(2), String(cpu(figure, 'A') ?? '-'), String(cpu(figure, 'B') ?? '-')];
  })));
  console.log('B/A: throughput compares the ratios to bare; latency compares the p99s as measured.');
  const clients = slots.flatMap((s) => [...s.bare.steady, ...s.steady]);
  console.log(`open-loop client: sent up to ${Math.max(...clients.map((r) => r.sendLagP99Ms))} ms late (p99 of a run; median ${median(clients.map((r) => r.sendLagP99Ms))} ms), ` +
    `${Math.round(median(clients.map((r) => r.clientCpuUs))!)} µs of its own CPU per request (median)`);
  const other = slots.flatMap((s) => runsOf(s).map((r) => r.foreign?.otherCores ?? 0));
  console.log(`other processes used ${Math.min(...other)}–${Math.max(...other)} cores during the runs (median ${median(other)})\n`);
  // The ratios to bare assume the machine ran as fast in A's slots as in B's; on a shared VM it may not.
  const bare = (side: 'A' | 'B') => median(slots.filter((s) => s.side === side).map((s) => s.bare.throughput.requestsPerSecond))!;
  const bareMoved = Math.max(bare('A'), bare('B')) / Math.min(bare('A'), bare('B')) > 1.2;
  if (bareMoved) {
    console.log(`WARNING: the bare server made ${fmt(bare('A'))} req/s in A's slots and ${fmt(bare('B'))} in B's: the machine's speed moved, so the `
      + 'throughput ratios to bare, and the verdicts on them, are not reliable in this run; compare the CPU per request instead.\n');
  }
  for (const [i, figure] of all.entries()) {
    if (!figure.target) continue;
    const met = figure.target.met(summaries[i]!);
    const unreliable = bareMoved && figure.unit === 'req/s' ? ' (unreliable in this run: see the warning above)' : '';
    console.log(`${met === null ? 'n/a        ' : met ? 'reached    ' : 'not reached'}  ${figure.target.text}${unreliable}`);
  }

  mkdirSync(dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, `${JSON.stringify({
    finished: new Date().toISOString(), node: process.version, pinned: PINNED, a: a.label, b: b.label,
    settings: { ...options, durationSeconds: DURATION, warmupSeconds: WARMUP, connections: CONNECTIONS, rates: RATES },
    summary: all.map((figure, i) => ({ figure: figure.name, ...summaries[i] })), slots,
  }, null, 2)}\n`);
  console.log(`\nResults written to ${RESULTS}`);
  const failed = slots.some((s) => runsOf(s).some((r) => r.non2xx + r.errors > 0));
  if (failed) console.log('WARNING: some requests failed (non-2xx answers or socket errors); the figures above are not clean');
  return failed ? 1 : 0;
}
