// The bench's settings from the environment, shared by every mode of `npm run bench`.
import { join } from 'node:path';
import { tmpdir } from 'node:os';

export function setting(name: string, fallback: number, { integer = false, min = 0 } = {}): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < min || (integer && !Number.isInteger(value))) {
    throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} >= ${min}, not "${raw}"`);
  }
  return value;
}

/** A bench's command-line option `--name VALUE`, or `fallback`. */
export function option(name: string, fallback: string): string {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : process.argv[at + 1]!;
}

export const QUICK = process.env.BENCH_QUICK === '1';
/** Seconds of measured load per run. */
export const DURATION = setting('BENCH_DURATION', QUICK ? 3 : 10, { min: 1 });
/** Seconds of unmeasured load before each run. */
export const WARMUP = setting('BENCH_WARMUP', QUICK ? 1 : 2, { min: 0 });
/** wrk's connections for throughput runs. */
export const CONNECTIONS = setting('BENCH_CONNECTIONS', 50, { integer: true, min: 1 });

/** Bench databases are throwaway: one fixed master key opens every one of them. */
export const BENCH_MASTER_KEY = '00'.repeat(32);

/** Cached datasets, worktrees and results. */
export const CACHE_DIR = join(tmpdir(), 'punchcard-bench');

const fmtNumber = new Intl.NumberFormat('en-US');
export const fmt = (n: number) => fmtNumber.format(n);

/** A plain-text table: the first column left-aligned, the others right-aligned. */
export function table(head: string[], body: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd();
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}
