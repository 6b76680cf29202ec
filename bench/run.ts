// npm run bench: the award route against a bare node:http ceiling — same load tool (autocannon,
// driven from this process), same duration, same connections, 127.0.0.1 only — under
// synchronous=FULL and NORMAL, with two references (the same work as bare through a minimal h3
// app, and the award route with its SQLite write skipped) and the CPU each server process uses
// per request. Bare runs first and last; the ceiling is their mean. Then the in-process ledger
// rate. See bench/README.md.
//
//   BENCH_DURATION     seconds of measured load per HTTP run (default 10)
//   BENCH_CONNECTIONS  concurrent connections (default 50)
//   BENCH_WARMUP       seconds of unmeasured load before each HTTP run (default 2)
//   BENCH_AWARDS       awards per in-process ledger case (default 20000)
//   BENCH_CPU_PROF=dir write a V8 CPU profile of each Punchcard server process into dir
//   BENCH_RESULTS      where to write the JSON results (default <os tmpdir>/punchcard-bench/latest.json)
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { openDatabase, type Synchronous } from '../src/db/connection.ts';
import { checkLedger } from '../src/domain/audit.ts';
import type { ReplicationStatus } from '../src/replication/status.ts';
import type { ParentMessage } from './child.ts';
import { ledgerRate, type LedgerRate } from './ledger.ts';
import { watchCpu, watchForeignLoad, type ForeignLoad } from './machine.ts';

// --- settings ----------------------------------------------------------------------------------

function setting(name: string, fallback: number, { integer = false, min = 0 } = {}): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, not "${raw}"`);
  }
  return value;
}

const DURATION = setting('BENCH_DURATION', 10, { min: 1 });
const CONNECTIONS = setting('BENCH_CONNECTIONS', 50, { integer: true, min: 1 });
const WARMUP = setting('BENCH_WARMUP', 2, { min: 0 });
const AWARDS = setting('BENCH_AWARDS', 20_000, { integer: true, min: 50 });
const CPU_PROF = process.env.BENCH_CPU_PROF ? resolve(process.env.BENCH_CPU_PROF) : undefined;
const RESULTS = resolve(process.env.BENCH_RESULTS ?? join(tmpdir(), 'punchcard-bench', 'latest.json'));
const MEMBERS = 1000;
const PER_TRANSACTION = 50;
const BODY = JSON.stringify({ amount: 1 });
const TARGET = { ratio: 0.5, p99Ms: 20, replicationCostPercent: 10, replicationLagSeconds: 2 };

const root = fileURLToPath(new URL('..', import.meta.url));
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

// --- cleanup: children and temp dirs go away however this process ends -----------------------

const children = new Set<ChildProcess>();
const tempDirs = new Set<string>();
/** Children we asked to stop; any other exit of a started child is unexpected and reported. */
const stopping = new WeakSet<ChildProcess>();
const unexpectedExits = new Map<ChildProcess, string>();

function cleanUp(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}
process.once('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the benchmark`);
    cleanUp();
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  });
}
// Whatever happens, stop well after the longest expected run.
const budgetMs = ((WARMUP + DURATION + 30) * 6 + 600) * 1000;
setTimeout(() => {
  console.error(`bench: still running after ${Math.round(budgetMs / 1000)} s; giving up`);
  process.exit(2);
}, budgetMs).unref();

// --- child processes ---------------------------------------------------------------------------

interface Child<T> {
  process: ChildProcess;
  info: T;
}

/** Starts a TypeScript file in its own process and resolves with the JSON line it prints first. */
function startChild<T>(file: string, args: string[], execArgv: string[] = []): Promise<Child<T>> {
  const child = spawn(process.execPath, [...execArgv, '--import', 'tsx', here(file), ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`${file} did not start within 60 s`)), 60_000);
    child.once('error', fail);
    child.once('exit', (code, signal) => fail(new Error(`${file} exited (${signal ?? code}) before it was ready`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const newline = out.indexOf('\n');
      if (newline === -1) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.once('exit', (code, signal) => {
        children.delete(child);
        if (stopping.has(child)) return;
        const how = signal ? `signal ${signal}` : `code ${code}`;
        unexpectedExits.set(child, how);
        console.error(`WARNING: ${file} (pid ${child.pid}) exited unexpectedly (${how}) while the bench was running`);
      });
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      try {
        resolve({ process: child, info: JSON.parse(out.slice(0, newline)) as T });
      } catch {
        fail(new Error(`${file} printed ${JSON.stringify(out.slice(0, newline))} instead of a JSON line`));
      }
    });
  });
}

/** Sends a request over IPC and waits for the reply of the same type. */
function ask<R>(child: ChildProcess, message: ParentMessage): Promise<R> {
  return new Promise((resolve, reject) => {
    if (!child.connected) return reject(new Error(`the server process is gone (${unexpectedExits.get(child) ?? 'exited'}); cannot ask it to ${message.type}`));
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`no answer to ${message.type} within 10 s`));
    }, 10_000);
    const onMessage = (answer: { type: string }) => {
      if (answer.type !== message.type) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(answer as R);
    };
    child.on('message', onMessage);
    child.send(message, (error) => {
      if (!error) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      reject(error);
    });
  });
}

/** Asks the child to stop (Punchcard drains its pending writes) and waits; kills it after 15 s. */
async function stopChild(child: ChildProcess): Promise<number | null> {
  stopping.add(child);
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  if (child.connected) child.send({ type: 'stop' } satisfies ParentMessage);
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

// --- load --------------------------------------------------------------------------------------

interface HttpResult {
  name: string;
  seconds: number;
  requestsPerSecond: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** Requests written; those neither answered nor failed were in flight when autocannon stopped. */
  sent: number;
  inFlightAtStop: number;
  /** CPU used by processes other than the bench and the server during the run (Linux only). */
  foreign: ForeignLoad | null;
  /** Set when the server process exited during the run without being asked to. */
  serverExit: string | null;
  /** CPU time per answered request, in µs: the server process (all threads) and autocannon (this process). Linux only. */
  cpuUsPerRequest: { server: number; loadGenerator: number } | null;
}

function load(name: string, url: string, seconds: number, headers: Record<string, string>, path: () => string, server: ChildProcess): Promise<HttpResult> {
  const foreign = watchForeignLoad([process.pid, server.pid!]);
  const cpu = watchCpu([server.pid!, process.pid]);
  return new Promise((resolve, reject) => {
    autocannon({
      url,
      connections: CONNECTIONS,
      duration: seconds,
      timeout: 10,
      requests: [{
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: BODY,
        setupRequest: (request) => ({ ...request, path: path() }),
      }],
    }, (error, result) => {
      if (error) return reject(error);
      const answered = result['1xx'] + result['2xx'] + result['3xx'] + result['4xx'] + result['5xx'];
      const seconds = cpu();
      const perRequest = (s: number) => Math.round((s * 1e6 * 10) / Math.max(answered, 1)) / 10;
      resolve({
        name,
        seconds: result.duration,
        requestsPerSecond: Math.round(result.requests.average),
        latencyMs: {
          mean: result.latency.average, p50: result.latency.p50, p90: result.latency.p90, p99: result.latency.p99, max: result.latency.max,
        },
        ok: result['2xx'],
        non2xx: result.non2xx,
        errors: result.errors,
        timeouts: result.timeouts,
        sent: result.requests.sent,
        inFlightAtStop: Math.max(0, result.requests.sent - answered - result.errors),
        foreign: foreign(),
        serverExit: unexpectedExits.get(server) ?? null,
        cpuUsPerRequest: seconds ? { server: perRequest(seconds[0]!), loadGenerator: perRequest(seconds[1]!) } : null,
      });
    });
  });
}

async function warmAndMeasure(
  name: string, server: ChildProcess, url: string, headers: Record<string, string>, path: () => string, between?: () => Promise<unknown>,
) {
  const warm = WARMUP > 0 ? await load(`${name} (warm-up)`, url, WARMUP, headers, path, server) : null;
  await between?.();
  const measured = await load(name, url, DURATION, headers, path, server);
  return { warm, measured };
}

// --- the runs ----------------------------------------------------------------------------------

/** A reference server: bare node:http, or the same work through a minimal h3 app. */
async function reference(file: string, name: string): Promise<HttpResult> {
  const child = await startChild<{ url: string }>(file, []);
  try {
    return (await warmAndMeasure(name, child.process, child.info.url, {}, () => '/api/v1/members/member-0/points')).measured;
  } finally {
    await stopChild(child.process);
  }
}

interface ServerStats {
  wallMs: number;
  cpuCores: number;
  eventLoopUtilization: number;
  batches: number;
  writes: number;
  batchSize: { mean: number; p50: number; p90: number; p99: number; max: number };
  workMsPerBatch: number;
  commitMs: { mean: number; p50: number; p99: number; max: number };
  batchShareOfWall: number;
  replication: ReplicationStatus | null;
}

interface LedgerCheck {
  violations: number;
  transactions: number;
  /** 2xx answers autocannon counted over warm-up and measured run. */
  acknowledged: number;
  inFlightAtStop: number;
  /** transactions − acknowledged: awards committed for requests autocannon cancelled at the stop. */
  unacknowledged: number;
  holds: boolean;
}

interface PunchcardResult extends HttpResult {
  synchronous: Synchronous;
  mode: 'write' | 'no-write';
  server: ServerStats;
  ledger: LedgerCheck | null;
}

/** `replicated`: the server replicates with Litestream to a file:// replica in the run's temp dir. */
async function punchcard(synchronous: Synchronous, mode: 'write' | 'no-write' = 'write', replicated = false): Promise<PunchcardResult> {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-bench-'));
  tempDirs.add(dir);
  try {
    const execArgv = CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(CPU_PROF, `${synchronous}-${mode}`)}`] : [];
    const child = await startChild<{ url: string; secretKey: string; db: string }>(
      './punchcard-server.ts', [synchronous, String(MEMBERS), dir, mode, ...(replicated ? ['replicate'] : [])], execArgv);
    let counter = 0;
    const path = () => `/api/v1/members/member-${counter++ % MEMBERS}/points`;
    const headers = { authorization: `Bearer ${child.info.secretKey}` };
    const name = mode === 'write' ? `punchcard award, synchronous=${synchronous}${replicated ? ', replicated (file://)' : ''}` : 'punchcard award, write skipped (diagnostic)';
    let run: Awaited<ReturnType<typeof warmAndMeasure>>;
    let server: ServerStats;
    try {
      run = await warmAndMeasure(name, child.process, child.info.url, headers, path, () => ask(child.process, { type: 'reset' }));
      server = (await ask<{ stats: ServerStats }>(child.process, { type: 'stats' })).stats;
    } finally {
      const code = await stopChild(child.process);
      if (code !== 0) console.warn(`WARNING: the Punchcard server process exited with ${code}`);
    }
    const { warm, measured } = run;

    let ledger: LedgerCheck | null = null;
    if (mode === 'write') {
      const db = openDatabase(child.info.db);
      try {
        const transactions = (db.prepare('SELECT count(*) AS n FROM transactions').get() as { n: number }).n;
        const violations = checkLedger(db).length;
        const acknowledged = (warm?.ok ?? 0) + measured.ok;
        const inFlightAtStop = (warm?.inFlightAtStop ?? 0) + measured.inFlightAtStop;
        const unacknowledged = transactions - acknowledged;
        ledger = {
          violations, transactions, acknowledged, inFlightAtStop, unacknowledged,
          holds: violations === 0 && unacknowledged >= 0 && unacknowledged <= inFlightAtStop,
        };
      } finally {
        db.close();
      }
    }
    return { ...measured, synchronous, mode, server, ledger };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
  }
}

// --- printing ----------------------------------------------------------------------------------

const fmt = (n: number) => n.toLocaleString('en-US');
const pct = (part: number, whole: number) => (whole > 0 ? Math.round((100 * part) / whole) : 0);

function httpTable(rows: HttpResult[], ceiling: number): string {
  const head = ['run', 'req/s', 'p50 ms', 'p99 ms', '% of bare', 'server CPU µs/req', '2xx', 'non-2xx', 'errors'];
  const body = rows.map((r) => [
    r.name, fmt(r.requestsPerSecond), String(r.latencyMs.p50), String(r.latencyMs.p99),
    `${pct(r.requestsPerSecond, ceiling)}%`, r.cpuUsPerRequest ? String(r.cpuUsPerRequest.server) : 'n/a',
    fmt(r.ok), fmt(r.non2xx), fmt(r.errors),
  ]);
  return table(head, body);
}

function table(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

function describeServer(r: PunchcardResult): string {
  const s = r.server;
  const lines = [`  server: ${s.cpuCores} CPU cores busy, event loop ${Math.round(s.eventLoopUtilization * 100)}% busy`];
  if (r.mode === 'write') {
    lines.push(`  group commit: ${fmt(s.batches)} batches for ${fmt(s.writes)} writes; batch size mean ${s.batchSize.mean}, ` +
      `p50 ${s.batchSize.p50}, p90 ${s.batchSize.p90}, p99 ${s.batchSize.p99}, max ${s.batchSize.max}`);
    lines.push(`  per batch: writes ${s.workMsPerBatch} ms, COMMIT ${s.commitMs.mean} ms mean (p50 ${s.commitMs.p50}, p99 ${s.commitMs.p99}, ` +
      `max ${s.commitMs.max}); batches take ${Math.round(s.batchShareOfWall * 100)}% of wall time`);
  }
  if (s.replication) lines.push(`  replication: Litestream ${s.replication.state}, lag ${s.replication.lagSeconds ?? 'unknown'} s at the end of the run`);
  if (r.ledger) {
    const l = r.ledger;
    const cancelled = l.unacknowledged === 0 ? '' : ` + ${fmt(l.unacknowledged)} for requests still in flight when autocannon closed its connections (${l.inFlightAtStop} were)`;
    lines.push(`  ledger: checkLedger ${l.violations === 0 ? 'clean (0 violations)' : `${l.violations} VIOLATIONS`}; ` +
      `${fmt(l.transactions)} transactions = ${fmt(l.acknowledged)} 2xx answers (warm-up + run)${cancelled} ` +
      `→ ${l.holds ? (l.unacknowledged === 0 ? 'equal' : 'consistent') : 'MISMATCH'}`);
  }
  lines.push(...warnings(r));
  return lines.join('\n');
}

const FOREIGN_LIMIT = 0.2; // cores

function warnings(r: HttpResult): string[] {
  const lines: string[] = [];
  if (r.serverExit) lines.push(`  WARNING: the server process exited during this run (${r.serverExit}), not stopped by the bench; the run is invalid`);
  if (r.non2xx !== 0 || r.errors !== 0) lines.push(`  WARNING: ${r.non2xx} non-2xx answers and ${r.errors} errors (${r.timeouts} timeouts); expected 0`);
  if (r.foreign && r.foreign.otherCores > FOREIGN_LIMIT) {
    lines.push(`  WARNING: other processes used ${r.foreign.otherCores} CPU cores during this run; its figures are low and noisy`);
  }
  if (r.foreign && r.foreign.stealCores > FOREIGN_LIMIT) lines.push(`  WARNING: the hypervisor took ${r.foreign.stealCores} cores (steal) during this run`);
  return lines;
}

const clean = (r: HttpResult) => r.non2xx === 0 && r.errors === 0 && r.serverExit === null;

const disturbed = (r: HttpResult) => r.foreign !== null && (r.foreign.otherCores > FOREIGN_LIMIT || r.foreign.stealCores > FOREIGN_LIMIT);

/**
 * The CPU arithmetic behind the ratio target. A server process that does its work on one thread
 * can answer at most 1e6 / (µs per request) requests per second, so at the target rate it has
 * this many µs of CPU per request; the reference runs show how much of that the HTTP stack alone
 * takes before the route does anything.
 */
function cpuBudget(ceiling: Ceiling, h3Floor: HttpResult, runs: PunchcardResult[]): string | null {
  const cpu = (r: HttpResult | undefined) => r?.cpuUsPerRequest?.server;
  const skipped = runs.find((r) => r.mode === 'no-write');
  const full = runs.find((r) => r.mode === 'write' && r.synchronous === 'FULL');
  if ([...ceiling.runs, h3Floor, skipped, full].some((r) => cpu(r) === undefined)) return null;
  const targetRate = ceiling.requestsPerSecond * TARGET.ratio;
  const bareCpu = Math.round((10 * (cpu(ceiling.runs[0]!)! + cpu(ceiling.runs[1]!)!)) / 2) / 10;
  return [
    `CPU per request: at ${TARGET.ratio * 100}% of bare (${fmt(Math.round(targetRate))} req/s) a one-thread server has ` +
      `${Math.round(1e6 / targetRate)} µs per request.`,
    `  measured: bare ${bareCpu}, h3 floor ${cpu(h3Floor)}, award route with the write skipped ${cpu(skipped)}, ` +
      `award route under FULL ${cpu(full)} µs (autocannon used ${full!.cpuUsPerRequest!.loadGenerator} µs per request on its own core).`,
  ].join('\n');
}

/**
 * Bare runs first and again last: the ceiling is their mean, so a machine whose speed drifts
 * during the bench (shared VMs do) skews the ratio less, and the drift is reported.
 */
interface Ceiling {
  runs: [HttpResult, HttpResult];
  requestsPerSecond: number;
  driftPercent: number;
}

function ceilingOf(first: HttpResult, last: HttpResult): Ceiling {
  const mean = (first.requestsPerSecond + last.requestsPerSecond) / 2;
  return {
    runs: [first, last],
    requestsPerSecond: Math.round(mean),
    driftPercent: Math.round((100 * Math.abs(first.requestsPerSecond - last.requestsPerSecond)) / mean),
  };
}

const DRIFT_LIMIT = 10; // percent

// --- main --------------------------------------------------------------------------------------

async function main(): Promise<number> {
  const started = new Date();
  console.log(`Punchcard bench — node ${process.version}, ${availableParallelism()} × ${cpus()[0]?.model.trim() ?? 'CPU'}`);
  console.log(`autocannon in this process → 127.0.0.1; ${CONNECTIONS} connections, ${DURATION} s per run after ${WARMUP} s warm-up; ` +
    `POST ${BODY}; Punchcard with ${fmt(MEMBERS)} members, requests spread across them\n`);

  const bareFirst = await reference('./bare-server.ts', 'bare node:http (first)');
  const h3Floor = await reference('./h3-server.ts', 'h3 floor (bare\'s work in h3)');
  console.log(httpTable([bareFirst, h3Floor], bareFirst.requestsPerSecond));
  for (const line of [...warnings(bareFirst), ...warnings(h3Floor)]) console.log(line);

  const runs: PunchcardResult[] = [];
  for (const [synchronous, mode, replicated] of [['FULL', 'no-write', false], ['FULL', 'write', false], ['FULL', 'write', true], ['NORMAL', 'write', false]] as const) {
    const r = await punchcard(synchronous, mode, replicated);
    runs.push(r);
    console.log(`${r.name}: ${fmt(r.requestsPerSecond)} req/s, p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms`);
    console.log(describeServer(r));
  }
  const bareLast = await reference('./bare-server.ts', 'bare node:http (last)');
  for (const line of warnings(bareLast)) console.log(line);
  const ceiling = ceilingOf(bareFirst, bareLast);
  const everyRun: HttpResult[] = [bareFirst, h3Floor, ...runs, bareLast]; // in the order they ran

  console.log(`\nIn-process ledger: ${fmt(AWARDS)} awards with adjustPoints, no HTTP, ${fmt(MEMBERS)} members`);
  const ledger: LedgerRate[] = [];
  for (const synchronous of ['FULL', 'NORMAL'] as const) {
    for (const perTransaction of [1, PER_TRANSACTION]) {
      ledger.push(await ledgerRate(synchronous, perTransaction, AWARDS, { members: MEMBERS, tempDirs }));
    }
  }

  const full = runs.find((r) => r.synchronous === 'FULL' && r.mode === 'write' && !r.server.replication)!;
  const replicated = runs.find((r) => r.server.replication)!;
  const replicationCost = 100 - pct(replicated.requestsPerSecond, full.requestsPerSecond);
  const lag = replicated.server.replication!.lagSeconds;
  const ratio = full.requestsPerSecond / ceiling.requestsPerSecond;
  const writeRuns = runs.filter((r) => r.mode === 'write');
  const checks: [string, boolean][] = [
    [`FULL award route at ${pct(full.requestsPerSecond, ceiling.requestsPerSecond)}% of bare requests/s (target >= ${TARGET.ratio * 100}%)` +
      (ceiling.runs.every(clean) ? '' : ' — INVALID: a bare run had errors'), ratio >= TARGET.ratio && ceiling.runs.every(clean) && clean(full)],
    [`FULL award route p99 ${full.latencyMs.p99} ms (target < ${TARGET.p99Ms} ms)`, full.latencyMs.p99 < TARGET.p99Ms && clean(full)],
    ['no non-2xx answers and no errors in any run', everyRun.every(clean)],
    ['ledger invariant holds and transactions match the 2xx answers after each Punchcard run', writeRuns.every((r) => r.ledger?.holds === true)],
    ['in-process ledger: every award written, invariant holds', ledger.every((l) => l.verified)],
    [`replication (Litestream, file:// replica) costs the FULL award route ${replicationCost}% of its requests/s (target < ${TARGET.replicationCostPercent}%)`,
      replicationCost < TARGET.replicationCostPercent && clean(replicated)],
    [`replication lag at the end of the run ${lag ?? 'unknown'} s (target < ${TARGET.replicationLagSeconds} s)`, lag !== null && lag < TARGET.replicationLagSeconds],
  ];

  console.log('\n=== Summary ===');
  console.log(httpTable(everyRun, ceiling.requestsPerSecond));
  console.log(`\nPercentages are of the two bare runs' mean, ${fmt(ceiling.requestsPerSecond)} req/s; they differ by ${ceiling.driftPercent}%.` +
    (ceiling.driftPercent > DRIFT_LIMIT ? ' WARNING: the machine\'s speed changed during the bench; rerun before trusting the ratio.' : ''));
  const budget = cpuBudget(ceiling, h3Floor, runs);
  if (budget) console.log(`\n${budget}`);
  console.log('');
  console.log(table(['in-process ledger', 'awards/s', 'seconds'], ledger.map((l) => [
    `synchronous=${l.synchronous}, ${l.perTransaction === 1 ? '1 award per transaction' : `${l.perTransaction} awards per transaction`}`,
    fmt(l.awardsPerSecond), l.seconds.toFixed(2),
  ])));
  console.log('');
  for (const [label, pass] of checks) console.log(`${pass ? 'PASS' : 'FAIL'}  ${label}`);
  const noisy = everyRun.filter(disturbed);
  if (noisy.length > 0) console.log(`NOTE  other processes competed for the CPU during: ${noisy.map((r) => r.name).join('; ')}. Rerun on an idle machine.`);

  mkdirSync(dirname(RESULTS), { recursive: true });
  writeFileSync(RESULTS, `${JSON.stringify({
    started: started.toISOString(),
    finished: new Date().toISOString(),
    node: process.version,
    cpus: availableParallelism(),
    settings: { durationSeconds: DURATION, warmupSeconds: WARMUP, connections: CONNECTIONS, members: MEMBERS, awards: AWARDS, body: BODY },
    bare: ceiling,
    h3Floor: { ...h3Floor, percentOfBare: pct(h3Floor.requestsPerSecond, ceiling.requestsPerSecond) },
    punchcard: runs.map((r) => ({ ...r, percentOfBare: pct(r.requestsPerSecond, ceiling.requestsPerSecond) })),
    ledger,
    target: { minPercentOfBare: TARGET.ratio * 100, maxP99Ms: TARGET.p99Ms, maxReplicationCostPercent: TARGET.replicationCostPercent, maxReplicationLagSeconds: TARGET.replicationLagSeconds },
    checks: checks.map(([check, pass]) => ({ check, pass })),
  }, null, 2)}\n`);
  console.log(`\nResults written to ${RESULTS}`);
  if (CPU_PROF) console.log(`CPU profiles of the Punchcard server processes in ${CPU_PROF}`);
  return checks.every(([, pass]) => pass) ? 0 : 1;
}

main().then((code) => {
  cleanUp();
  process.exit(code);
}, (error: unknown) => {
  console.error('bench failed:', error);
  cleanUp();
  process.exit(2);
});
