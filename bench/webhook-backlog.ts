// A dead receiver must cost nothing; a drain must stay bounded (issue 31, items 1 and 2):
//   node --import tsx bench/webhook-backlog.ts [--seconds 10] [--backlog 200000] [--only claim|drain]
//
// 1. claim: award p99 at a steady 200/s (open loop) on a server whose one webhook is black-holed
//    (accepts the connection, never answers), with 0 and then `--backlog` deliveries waiting for it.
// 2. drain: a server starts on `--backlog` due deliveries for a healthy local receiver; deliveries/s
//    until the last arrives, and the server's peak RSS (VmHWM) over the drain.
// Each server is a child process with its own database, seeded with SQL before it starts.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
};

/** Child: a database with one project, 100 members, one webhook and `backlog` due deliveries; then the real server. */
async function serve([dir, webhookUrl, backlog]: string[]): Promise<void> {
  const { startServer } = await import('../src/server.ts');
  const { openStore } = await import('../src/store.ts');
  const { createProject } = await import('../src/domain/projects.ts');
  const { upsertMember } = await import('../src/domain/members.ts');
  const { createWebhook } = await import('../src/domain/webhooks.ts');
  const db = join(dir!, 'bench.db');
  const masterKey = randomBytes(32).toString('hex');
  const store = await openStore({ path: db, masterKey });
  const now = new Date();
  const { project, secretKey } = createProject(store.db, store.box, { name: 'Bench' }, now);
  const webhook = createWebhook(store.db, store.box, project.id, { url: webhookUrl!, events: ['points.awarded'] }, now);
  store.db.transaction(() => {
    for (let i = 0; i < 100; i++) upsertMember(store.db, project.id, { externalId: `member-${i}` }, now);
    // As emit() writes them: one event and one pending delivery per award, all due now.
    store.db.prepare(`INSERT INTO events (public_id, project_id, type, data, created_at)
      SELECT 'evt_bench' || value, ?, 'points.awarded', json_object('externalId', 'member-' || (value % 100), 'pointsAwarded', 1, 'newBalance', value), ?
      FROM (WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < ?) SELECT value FROM n)`)
      .run(project.id, now.toISOString(), Number(backlog));
    store.db.prepare(`INSERT INTO webhook_deliveries (public_id, project_id, webhook_id, event_id, run_at, created_at)
      SELECT 'dlv_bench' || id, ?, ?, id, ?, ? FROM events`).run(project.id, webhook.id, now.toISOString(), now.toISOString());
  }).immediate();
  store.close();
  const server = await startServer({ db, port: 0, host: '127.0.0.1', masterKey, logLevel: 'error', webhooks: { allowInsecure: true } });
  console.log(JSON.stringify({ url: server.url, secretKey }));
  process.stdin.once('end', () => void server.close().then(() => process.exit(0)));
  process.stdin.resume();
}

interface Child { process: ChildProcess; url: string; secretKey: string }

function startChild(dir: string, webhookUrl: string, backlog: number): Promise<Child> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, 'serve', dir, webhookUrl, String(backlog)], { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ process: child, ...(JSON.parse(line) as { url: string; secretKey: string }) });
    });
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
  });
}

async function stopChild(child: Child): Promise<void> {
  const exited = new Promise((resolve) => child.process.once('exit', resolve));
  child.process.stdin!.end();
  await exited;
}

const peakRssMiB = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

/** A receiver on 127.0.0.1: `hang` accepts and never answers; otherwise 200 at once, counting arrivals. */
async function startReceiver(hang: boolean, onRequest: () => void = () => undefined) {
  const server = createServer((req, res) => {
    req.resume();
    if (hang) return;
    req.on('end', () => {
      onRequest();
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Awards at `rate`/s for `seconds` (open loop); the answers' latencies, sorted. */
async function steadyAwards(child: Child, rate: number, seconds: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = start + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(new Promise<void>((resolve, reject) => {
      const sent = performance.now();
      const req = request(`${child.url}/api/v1/members/member-${i % 100}/points`, {
        method: 'POST', agent, headers: { authorization: `Bearer ${child.secretKey}`, 'content-type': 'application/json' },
      }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode !== 200) reject(new Error(`award answered ${res.statusCode}`));
          latencies.push(performance.now() - sent);
          resolve();
        });
      });
      req.on('error', reject);
      req.end('{"amount":1}');
    }));
  }
  await Promise.all(pending);
  agent.destroy();
  return latencies.sort((a, b) => a - b);
}

async function claimCost(dir: string, seconds: number, backlog: number): Promise<void> {
  const blackHole = await startReceiver(true);
  for (const waiting of [0, backlog]) {
    const child = await startChild(mkdtempSync(join(dir, 'claim-')), blackHole.url, waiting);
    await steadyAwards(child, 200, 1); // warm up
    const latencies = await steadyAwards(child, 200, seconds);
    console.log(`claim: ${waiting.toLocaleString('en')} deliveries waiting for a black-holed endpoint: award p50 ${percentile(latencies, 50).toFixed(2)} ms, `
      + `p99 ${percentile(latencies, 99).toFixed(2)} ms at 200/s for ${seconds} s (${latencies.length} awards)`);
    await stopChild(child);
  }
  await blackHole.close();
}

async function drain(dir: string, backlog: number): Promise<void> {
  let arrived = 0;
  let done: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => (done = resolve));
  let first = 0;
  const receiver = await startReceiver(false, () => {
    if (arrived++ === 0) first = performance.now();
    if (arrived === backlog) done();
  });
  const child = await startChild(mkdtempSync(join(dir, 'drain-')), receiver.url, backlog);
  const rssAtStart = peakRssMiB(child.process.pid!);
  await finished;
  const seconds = (performance.now() - first) / 1000;
  console.log(`drain: ${backlog.toLocaleString('en')} deliveries in ${seconds.toFixed(1)} s = ${Math.round(backlog / seconds).toLocaleString('en')}/s; `
    + `server peak RSS ${peakRssMiB(child.process.pid!).toFixed(0)} MiB (${rssAtStart.toFixed(0)} MiB when it started listening)`);
  await stopChild(child);
  await receiver.close();
}

async function main(): Promise<void> {
  const seconds = Number(arg('seconds', '10'));
  const backlog = Number(arg('backlog', '200000'));
  const only = arg('only', 'all');
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-webhook-backlog-'));
  try {
    if (only !== 'drain') await claimCost(dir, seconds, backlog);
    if (only !== 'claim') await drain(dir, backlog);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'serve') void serve(process.argv.slice(3));
else await main();
