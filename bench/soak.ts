// Soak: a server run for a while the way a shop runs it for months, in miniature.
//   npm run bench:soak -- [--rate 200] [--minutes 2] [--interval 30] [--prefill AWARDS]
//
// The server a shop runs (`node cli/punchcard.mjs serve`, the dist/ bundle, pinned to CPU 0) on a
// fresh database with one webhook endpoint, made beforehand through tsx; steady awards from this
// process (open loop: each award is due at a fixed time and its latency counts from then). The
// endpoint is, in turn, healthy, slow (answers after 2 s), black-holed (accepts and never answers)
// and healthy again; a backup runs during the black-holed phase; then the server is restarted on
// the grown file and measured for its first seconds. Every interval it prints award p50/p99, server
// RSS, deliveries waiting, rows per table, and the database, WAL and freelist sizes. Then it prints
// the bytes the database retains per award.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { Agent, createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { buildServer, builtServerName, setUp, startBuiltServer, stopServer, type BuiltServer } from './pinned-server.ts';
import { BENCH_MASTER_KEY } from './settings.ts';

const SELF = fileURLToPath(import.meta.url);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const MEMBERS = 1000;
const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};

/**
 * `setup`: the project and its webhook; prints {secretKey}. With `prefill` > 0, that many awards
 * are made first, their deliveries marked delivered, so the healthy phase runs on a database the
 * size the later phases reach rather than a fresh one.
 */
async function setup([db, webhookUrl, prefill = '0']: string[]): Promise<void> {
  const { openStore } = await import('../src/db/store.ts');
  const { createProject } = await import('../src/domain/project/projects.ts');
  const { upsertMember } = await import('../src/domain/members/members.ts');
  const { createWebhook } = await import('../src/webhooks/subscriptions.ts');
  const { adjustPoints } = await import('../src/domain/ledger/ledger.ts');
  const { recordDelivered } = await import('../src/webhooks/deliveries.ts');
  const store = await openStore({ path: db!, masterKey: BENCH_MASTER_KEY });
  const now = new Date();
  const created = createProject(store.db, store.box, { name: 'Soak' }, now);
  const webhook = store.db.transaction(() => {
    for (let i = 0; i < MEMBERS; i++) upsertMember(store.db, created.project.id, { externalId: `member-${i}` }, now);
    return createWebhook(store.db, store.box, created.project.id, { url: webhookUrl!, events: ['points.awarded'] }, now);
  }).immediate();
  const awards = Number(prefill);
  const pending = store.db.prepare<[], number>("SELECT id FROM webhook_deliveries WHERE status = 'pending'").pluck();
  for (let done = 0; done < awards; done += 1000) {
    store.db.transaction(() => {
      for (let i = done; i < Math.min(done + 1000, awards); i++) {
        adjustPoints(store.db, created.project.id, `member-${i % MEMBERS}`, { amount: 1 }, 'prefill', now);
      }
      for (const id of pending.all()) recordDelivered(store.db, id, webhook.id, 200, now);
    }).immediate();
  }
  store.close();
  console.log(JSON.stringify({ secretKey: created.secretKey }));
}

/** The built server on the soak's file, first start and restart alike. */
const startChild = (db: string, secretKey: string) => startBuiltServer(db, secretKey, ['--rate-limit-api-key', 'off']);

type Mode = 'healthy' | 'slow' | 'blackhole';

/** The webhook endpoint, switched between answering at once, after 2 s, or never. */
async function startReceiver() {
  let mode: Mode = 'healthy';
  const sockets = new Set<Socket>();
  let received = 0;
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    req.on('end', () => {
      received++;
      if (mode === 'healthy') res.writeHead(200).end();
      else if (mode === 'slow') setTimeout(() => res.writeHead(200).end(), 2000);
      // blackhole: never answers; the server's attempt timeout ends it.
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    set(next: Mode) {
      mode = next;
      if (next !== 'blackhole') for (const socket of sockets) socket.destroy(); // drop the hung ones
    },
    received: () => received,
    close: () => { server.closeAllConnections(); server.close(); },
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const mib = (bytes: number) => (bytes / 1048576).toFixed(1);
const size = (path: string) => statSync(path, { throwIfNoEntry: false })?.size ?? 0;

function rssOf(pid: number): number {
  // taskset execs node, so the child's pid is the server's.
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) * 1024;
}

const TABLES = ['transactions', 'point_lots', 'idempotency_keys', 'events', 'webhook_deliveries'];

function snapshot(db: string) {
  const reader = new Database(db, { readonly: true, fileMustExist: true });
  try {
    const rows = Object.fromEntries(TABLES.map((t) => [t, (reader.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]));
    const waiting = (reader.prepare("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'").get() as { n: number } | undefined)?.n
      ?? NaN;
    const freelist = reader.pragma('freelist_count', { simple: true }) as number;
    const pageSize = reader.pragma('page_size', { simple: true }) as number;
    // Each table with its indexes.
    const bytesPerTable = Object.fromEntries((reader.prepare(
      `SELECT s.tbl_name AS name, sum(d.pgsize) AS bytes FROM dbstat d JOIN sqlite_schema s ON s.name = d.name
       WHERE s.tbl_name IN (${TABLES.map(() => '?').join(',')}) GROUP BY s.tbl_name`).all(...TABLES) as { name: string; bytes: number }[])
      .map((r) => [r.name, r.bytes]));
    return { rows, waiting, freelistBytes: freelist * pageSize, bytesPerTable };
  } catch (error) {
    console.error(`snapshot: ${(error as Error).message}`);
    return null;
  } finally {
    reader.close();
  }
}

/** Awards at a steady rate, open loop; returns a function that takes the latencies gathered since the last call. */
function steadyAwards(child: () => BuiltServer, rate: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  let latencies: number[] = [];
  let errors = 0;
  let acknowledged = 0;
  let n = 0;
  const start = performance.now();
  let stopped = false;
  const run = randomBytes(4).toString('hex');
  const tick = () => {
    if (stopped) return;
    const due = start + (n * 1000) / rate;
    const now = performance.now();
    while (start + (n * 1000) / rate <= now) {
      const dueAt = start + (n * 1000) / rate;
      const member = n++ % MEMBERS;
      const { url, secretKey } = child();
      const req = request(`${url}/api/v1/members/member-${member}/points`, {
        method: 'POST', agent,
        // As a shop's server sends them: every award with its own Idempotency-Key.
        headers: { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json', 'idempotency-key': `soak-${run}-${n}` },
      }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode === 200) acknowledged++;
          else errors++;
          latencies.push(performance.now() - dueAt);
        });
      });
      req.on('error', () => errors++);
      req.end('{"amount":1,"description":"soak"}');
    }
    setTimeout(tick, Math.max(0, due + 1000 / rate - performance.now()));
  };
  tick();
  return {
    take() {
      const taken = latencies.sort((a, b) => a - b);
      latencies = [];
      const e = errors;
      errors = 0;
      return { taken, errors: e };
    },
    acknowledged: () => acknowledged,
    stop() {
      stopped = true;
      agent.destroy();
    },
  };
}

async function main(): Promise<void> {
  const rate = arg('rate', 200);
  const minutes = arg('minutes', 2);
  const interval = arg('interval', 30);
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-soak-'));
  const db = join(dir, 'soak.db');
  buildServer();
  const receiver = await startReceiver();
  let child = await startChild(db, await setUp(SELF, [db, receiver.url, String(arg('prefill', 0))]));
  const load = steadyAwards(() => child, rate);
  console.log(`soak: ${rate} awards/s, ${minutes} min per phase, a line every ${interval} s; ${builtServerName} pinned to CPU 0`);
  console.log('phase      t(s)  p50 ms  p99 ms  errors  RSS MiB  waiting  transactions  point lots  idem keys  events  deliveries  db MiB  wal MiB  free MiB');
  const began = performance.now();
  const report = (phase: string) => {
    const { taken, errors } = load.take();
    const s = snapshot(db);
    const cells = [phase.padEnd(9), ((performance.now() - began) / 1000).toFixed(0).padStart(5),
      percentile(taken, 50).toFixed(1).padStart(7), percentile(taken, 99).toFixed(1).padStart(7), String(errors).padStart(7),
      mib(rssOf(child.pid)).padStart(8), String(s?.waiting ?? '?').padStart(8),
      ...TABLES.map((t, i) => String(s?.rows[t] ?? '?').padStart([13, 11, 10, 7, 11, 10][i] ?? 10)),
      mib(size(db)).padStart(7), mib(size(`${db}-wal`)).padStart(8), mib(s?.freelistBytes ?? 0).padStart(9)];
    console.log(cells.join(' '));
  };
  const phases: [string, Mode][] = [['healthy', 'healthy'], ['slow', 'slow'], ['blackhole', 'blackhole'], ['recovered', 'healthy']];
  for (const [phase, mode] of phases) {
    receiver.set(mode);
    const until = performance.now() + minutes * 60_000;
    let backupDone = mode !== 'blackhole';
    while (performance.now() < until) {
      await sleep(interval * 1000);
      if (!backupDone) {
        const started = performance.now();
        // Asynchronously: the awards are sent from this process, and a synchronous wait held them
        // back for the backup's second, which the next window reported as a 1 s p99.
        const backup = spawn(process.execPath, [join(ROOT, 'cli/punchcard.mjs'), 'backup', join(dir, `backup-${Date.now()}.db`), '--db', db],
          { env: { ...process.env, PUNCHCARD_MASTER_KEY: BENCH_MASTER_KEY }, stdio: 'ignore', timeout: 120_000 });
        const status = await new Promise<number | null>((resolve) => backup.once('exit', resolve));
        console.log(`backup during load: exit ${status}, ${((performance.now() - started) / 1000).toFixed(2)} s, ${mib(size(db))} MiB database`);
        backupDone = true;
      }
      report(phase);
    }
  }
  // Restart on the grown file: the first seconds after the URL is printed.
  await stopServer(child);
  load.take();
  child = await startChild(db, child.secretKey);
  console.log(`restart: URL printed ${(child.readyAt - child.spawnedAt).toFixed(0)} ms after spawn (awards sent while it was down count as errors)`);
  await sleep(3000);
  report('restart3s');
  load.stop();
  await sleep(1000);
  const s = snapshot(db);
  const transactions = s?.rows.transactions ?? 0;
  if (s && transactions > 0) {
    const perAward = Object.entries(s.bytesPerTable).map(([name, bytes]) => `${name} ${(bytes / transactions).toFixed(0)} B`).join(', ');
    console.log(`bytes per award (${transactions} awards, within the retention windows): ${((size(db) - s.freelistBytes) / transactions).toFixed(0)} B in all; ${perAward}`);
  }
  await stopServer(child);
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}

if (process.argv[2] === 'setup') await setup(process.argv.slice(3));
else await main();
