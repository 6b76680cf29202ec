// npm run bench:analytics [-- --members 100000 --rows 1000000 --rounds 5 --turns 100 --base main --only awards,reads]
//
// The admin's Overview figures (issue 49's targets), on a project of `members` members and `rows`
// ledger rows over 365 days (every kind of row: awards from six sources, claims with their
// reward_claims rows, game costs, deductions, store refunds, expiry; quest completions with their
// quest_progress rows), built in SQL at the schema before migration 0034 and cached:
//   1. migration 0034 applied to it: the backfill of the daily figures from the ledger;
//   2. a connected store with 100,000 orders, then every figure recounted (doctor --rebuild-figures);
//   3. each Overview range and the 365-day points report, p50/p95/max over `iterations` calls, in a
//      read snapshot as the route runs them; doctor's check of the figures against the ledger;
//   4. the CPU an award costs through the group committer (batches of 50, and of 1), this checkout
//      against `--base` (default main: its code exported with git archive, so nothing is installed
//      or checked out), both in one process taking turns a batch at a time, each side on its own
//      copy of the same database; `--base-tree DIR` compares against a tree as it is (a copy of
//      this one with a change, or an unchanged copy to see the comparison's own noise).
// Every step runs in its own process pinned to core 0 (`taskset`), the machine's other processes
// being reported beside the figures.
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { FIGURES_NOW as NOW, figuresDataset } from './dataset.ts';
import { pinned, SERVER_CORE, tempDirs } from './processes.ts';
import { fmt, option, table } from './settings.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const MEMBERS = Number(option('members', '100000'));
const ROWS = Number(option('rows', '1000000'));
const ROUNDS = Number(option('rounds', '5'));
const BASE = option('base', 'main');
const ITERATIONS = Number(option('iterations', '200'));
const ORDERS = Number(option('orders', '100000'));
/** Batches of 50 each side takes per round (and four times as many single awards). */
const TURNS = Number(option('turns', '100'));
/** Steps to run besides the backfill (which every run makes): awards, reads. */
const ONLY = new Set(option('only', 'awards,reads').split(','));
const DAYS = 365;

/** Runs one step of bench/analytics-side.ts pinned to the server core and returns its JSON line. */
function side<T>(args: string[]): Promise<T> {
  const [command, list] = pinned(SERVER_CORE, process.execPath, ['--import', 'tsx', join(root, 'bench/analytics-side.ts'), ...args]);
  return new Promise((resolve, reject) => {
    const child = spawn(command, list, { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => { out += chunk.toString(); });
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').at(-1)!) as T) : reject(new Error(`${args[0]} exited with ${code}: ${out}`))));
  });
}

/** `--base` exported with git archive (src and migrations) beside this checkout's node_modules, or `--base-tree` as it is. */
function baseTree(work: string): string {
  const given = option('base-tree', '');
  if (given) return given;
  const sha = execFileSync('git', ['rev-parse', '--verify', `${BASE}^{commit}`], { cwd: root, encoding: 'utf8' }).trim();
  const tree = join(work, `base-${sha.slice(0, 7)}`);
  mkdirSync(tree);
  execFileSync('sh', ['-c', `git archive ${sha} src migrations package.json | tar -x -C "${tree}"`], { cwd: root });
  symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'));
  return tree;
}

const copy = (from: string, to: string) => {
  for (const suffix of ['', '-wal']) if (existsSync(from + suffix)) copyFileSync(from + suffix, to + suffix);
  return to;
};
const ms = (value: number) => value.toFixed(value < 10 ? 2 : 1);
const load = () => loadavg()[0]!.toFixed(2);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

type Cpu = { batch50: number; batch1: number; pages: { batch50: number; batch1: number } };
type Quantiles = { p50: number; p95: number; max: number };

/** Step 4: both trees in one pinned process, taking turns, ROUNDS times. */
async function awards(work: string, pristine: string, migrated: string, projectId: string): Promise<void> {
  const base = baseTree(work);
  const before = copy(pristine, join(work, 'base.db'));
  const after = copy(migrated, join(work, 'checkout.db'));
  const rounds: { base: Cpu; checkout: Cpu; pairedRatio: { batch50: number; batch1: number } }[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    rounds.push(await side(['awards', base, before, root, after, projectId, String(MEMBERS), String(TURNS)]));
    const { base: a, checkout: b, pairedRatio: p } = rounds.at(-1)!;
    console.log(`   round ${round + 1}: batches of 50 ${ms(a.batch50)} against ${ms(b.batch50)} µs (turns' median B/A ${p.batch50.toFixed(3)}), `
      + `of 1 ${ms(a.batch1)} against ${ms(b.batch1)} µs (${p.batch1.toFixed(3)}) (load ${load()})`);
  }
  const ratio = (key: 'batch50' | 'batch1') => rounds.map((r) => r.checkout[key] / r.base[key]);
  console.log(`\n4. CPU per award, ${BASE} (A) against this checkout (B), in one process taking turns, ${ROUNDS} rounds, medians:`);
  console.log(table(['batch', 'A µs', 'B µs', 'B/A median', 'B/A per round', 'turns\' B/A', 'A WAL pages', 'B WAL pages'], (['batch50', 'batch1'] as const).map((key) => [
    key === 'batch50' ? 'group commit of 50' : 'one award per commit', ms(median(rounds.map((r) => r.base[key]))),
    ms(median(rounds.map((r) => r.checkout[key]))), median(ratio(key)).toFixed(3), ratio(key).map((r) => r.toFixed(3)).join(' '),
    median(rounds.map((r) => r.pairedRatio[key])).toFixed(3),
    median(rounds.map((r) => r.base.pages[key])).toFixed(2), median(rounds.map((r) => r.checkout.pages[key])).toFixed(2),
  ])));
}

/** Steps 2 and 3, on a copy without step 4's awards (made at today's real date, after the dataset's year). */
async function reads(work: string, migrated: string, projectId: string): Promise<void> {
  const path = copy(migrated, join(work, 'reads.db'));
  const orders = await side<{ orders: number; rows: number; ms: number; cpuMs: number }>(['orders', path, projectId, String(ORDERS)]);
  console.log(`\n2. ${fmt(orders.orders)} store orders added; every figure recounted (doctor --rebuild-figures): ${fmt(Math.round(orders.ms))} ms, `
    + `${fmt(Math.round(orders.cpuMs))} ms of CPU, ${fmt(orders.rows)} rows (load ${load()})`);
  const read = await side<{ ranges: Record<string, Quantiles>; pointsReport365: Quantiles; checkMs: number; inStep: boolean; totals: unknown; commerce: unknown }>(
    ['read', path, projectId, NOW.toISOString(), String(ITERATIONS)]);
  console.log(`\n3. Reads, ${ITERATIONS} calls each (load ${load()}):`);
  console.log(table(['read', 'p50 ms', 'p95 ms', 'max ms'], [
    ...Object.entries(read.ranges).map(([range, q]) => [`Overview, ${range} days`, ms(q.p50), ms(q.p95), ms(q.max)]),
    ['points report, 365 days', ms(read.pointsReport365.p50), ms(read.pointsReport365.p95), ms(read.pointsReport365.max)],
  ]));
  console.log(`   doctor's check of every figure against the ledger: ${fmt(Math.round(read.checkMs))} ms; in step: ${read.inStep}`);
  console.log(`   365-day totals: ${JSON.stringify(read.totals)}\n   commerce: ${JSON.stringify(read.commerce)}`);
}

const work = mkdtempSync(join(tmpdir(), 'punchcard-bench-analytics-'));
tempDirs.add(work);
console.log(`Dataset: ${fmt(MEMBERS)} members, ${fmt(ROWS)} ledger rows over ${DAYS} days (load average ${load()})`);
const built = await figuresDataset(MEMBERS, ROWS);
const rows = new Database(built.path, { readonly: true }).prepare('SELECT count(*) FROM transactions').pluck().get() as number;
if (rows !== ROWS) throw new Error(`the cached dataset holds ${rows} rows, not ${ROWS}`);
const migrated = copy(built.path, join(work, 'migrated.db'));
const backfill = await side<{ applied: number[]; ms: number; cpuMs: number }>(['migrate', migrated]);
console.log(`\n1. Migration ${backfill.applied.join(', ')} (the backfill): ${fmt(Math.round(backfill.ms))} ms, ${fmt(Math.round(backfill.cpuMs))} ms of CPU (load ${load()})`);
if (ONLY.has('awards')) await awards(work, built.path, migrated, built.projectId);
if (ONLY.has('reads')) await reads(work, migrated, built.projectId);
rmSync(work, { recursive: true, force: true });
