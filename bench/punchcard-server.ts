// Punchcard as `punchcard serve` runs it, in its own process, for bench/run.ts:
//   node --import tsx bench/punchcard-server.ts <FULL|NORMAL> <db> [write|no-write] [temp dir]
// <db> is a bench database (bench/dataset.ts) with a project named Bench. The process issues a
// fresh secret key for it, starts the real server (startServer: group commit, h3, auth,
// validation) on 127.0.0.1, port 0, and prints {"url", "secretKey"} as one JSON line on stdout.
//
// It also watches the group committer from outside, without touching src/: every write goes
// through ctx.write, so wrapping it sees each write run inside its batch. A batch runs
// synchronously in one setImmediate callback, so a microtask queued by its first write runs right
// after that batch's COMMIT: that gives batch sizes and the COMMIT time (fsync included).
//
// `no-write` is a diagnostic: ctx.write answers 200 with a real award's response body without
// running the write, so the route costs everything but SQLite's part of the award (HTTP, h3, auth,
// body parsing, validation, serialising the answer).
import { rmSync } from 'node:fs';
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import type { Synchronous } from '../src/db/connection.ts';
import { issueKey } from '../src/domain/project/api-keys.ts';
import { adjustPoints } from '../src/domain/ledger/ledger.ts';
import { join } from 'node:path';
import { startServer } from '../src/server.ts';
import { openStore } from '../src/db/store.ts';
import { exitWithParent, reply } from './child.ts';
import { BENCH_MASTER_KEY } from './settings.ts';

// [temp dir] holds a copy of the database made for this run: removed if the bench process dies.
// `replicate` adds Litestream replicating to a file:// replica inside [temp dir].
const [syncArg = 'FULL', db, mode = 'write', tempDir, replicate] = process.argv.slice(2);
if (syncArg !== 'FULL' && syncArg !== 'NORMAL') throw new Error(`synchronous must be FULL or NORMAL, not ${syncArg}`);
if (!db) throw new Error('usage: punchcard-server.ts <FULL|NORMAL> <db> [write|no-write]');
const synchronous: Synchronous = syncArg;

const store = await openStore({ path: db, synchronous, masterKey: BENCH_MASTER_KEY });
let secretKey: string;
let sampleAward: unknown;
try {
  const now = new Date();
  const projectId = store.db.prepare("SELECT id FROM projects WHERE name = 'Bench'").pluck().get() as string;
  secretKey = issueKey(store.db, { projectId, type: 'secret' }, now).key;
  if (mode === 'no-write') {
    // One award's response body; rolled back so the database stays as it was.
    const rollBack = new Error('roll back');
    try {
      store.db.transaction(() => {
        sampleAward = adjustPoints(store.db, projectId, 'member-0', { amount: 1 }, secretKey.slice(0, 12), now);
        throw rollBack;
      }).immediate();
    } catch (error) {
      if (error !== rollBack) throw error;
    }
  }
} finally {
  store.close();
}

const server = await startServer({
  db, port: 0, host: '127.0.0.1', synchronous, masterKey: BENCH_MASTER_KEY, logLevel: 'silent', scheduler: false,
  replicate: replicate === 'replicate' && tempDir ? { url: `file://${join(tempDir, `replica-${process.pid}`)}` } : undefined,
});
// BENCH_SECURE_DELETE=OFF: the server as it ran before secure_delete, to measure what it costs.
if (process.env.BENCH_SECURE_DELETE === 'OFF') server.ctx.db.pragma('secure_delete = OFF');

// --- group-commit observation --------------------------------------------------------------
let sizes: number[] = [];
let workMs: number[] = [];
let commitMs: number[] = [];
let batchSize = 0;
let batchStart = 0;
let lastWorkEnd = 0;
const endBatch = () => {
  sizes.push(batchSize);
  workMs.push(lastWorkEnd - batchStart);
  commitMs.push(performance.now() - lastWorkEnd);
  batchSize = 0;
};
const write = server.ctx.write;
server.ctx.write = mode === 'no-write'
  ? <T>(_work: () => T): Promise<T> => Promise.resolve({ status: 200, body: sampleAward } as T)
  : <T>(work: () => T): Promise<T> => write(() => {
    if (batchSize++ === 0) {
      batchStart = performance.now();
      queueMicrotask(endBatch);
    }
    try {
      return work();
    } finally {
      lastWorkEnd = performance.now();
    }
  });

let cpuBase = process.cpuUsage();
let eluBase: EventLoopUtilization = performance.eventLoopUtilization();
let wallBase = performance.now();

const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);

function stats() {
  const wall = performance.now() - wallBase;
  const cpu = process.cpuUsage(cpuBase);
  const bySize = [...sizes].sort((a, b) => a - b);
  const commits = [...commitMs].sort((a, b) => a - b);
  const writes = sum(sizes);
  return {
    wallMs: round(wall, 0),
    /** CPU time of this process (all threads) over wall time: 1.0 = one core busy. */
    cpuCores: round((cpu.user + cpu.system) / 1000 / wall),
    /** Share of wall time the event loop (main thread) was busy. */
    eventLoopUtilization: round(performance.eventLoopUtilization(eluBase).utilization),
    batches: sizes.length,
    writes,
    batchSize: {
      mean: round(sizes.length ? writes / sizes.length : 0, 1),
      p50: percentile(bySize, 50), p90: percentile(bySize, 90), p99: percentile(bySize, 99), max: bySize.at(-1) ?? 0,
    },
    /** Time running the writes of a batch (savepoints, domain code, SQL) per batch. */
    workMsPerBatch: round(sizes.length ? sum(workMs) / sizes.length : 0, 3),
    /** COMMIT of a batch, fsync of the WAL included, plus settling its promises. */
    commitMs: {
      mean: round(commits.length ? sum(commits) / commits.length : 0, 3),
      p50: round(percentile(commits, 50), 3), p99: round(percentile(commits, 99), 3), max: round(commits.at(-1) ?? 0, 3),
    },
    /** Share of wall time spent inside batches (writes + COMMIT). */
    batchShareOfWall: round((sum(workMs) + sum(commitMs)) / wall),
  };
}

exitWithParent((reason) => {
  server.close().then(() => {
    // The bench process removes its temp dir; if it died, nobody else will.
    if (reason === 'orphaned' && tempDir) rmSync(tempDir, { recursive: true, force: true });
    process.exit(0);
  }, (error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}, (message) => {
  if (message.type === 'reset') {
    sizes = [];
    workMs = [];
    commitMs = [];
    cpuBase = process.cpuUsage();
    eluBase = performance.eventLoopUtilization();
    wallBase = performance.now();
    reply({ type: 'reset' });
  } else if (message.type === 'stats') {
    reply({ type: 'stats', stats: stats() });
  }
});

console.log(JSON.stringify({ url: server.url, secretKey }));
