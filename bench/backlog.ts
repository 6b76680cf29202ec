
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer, builtServerName, setUp, startBuiltServer, stopServer, type BuiltServer } from './pinned-server.ts';
import { cpuMs } from './machine.ts';
import { BENCH_MASTER_KEY } from './settings.ts';

const SELF = fileURLToPath(import.meta.url);
const MEMBERS = 1000;
const arg = (name: string, fallback: number) => {
  const at = process.argv.indexOf(`--${name}`);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};

/** `setup`: a database with one endpoint and `backlog` deliveries waiting for it; prints {secretKey}. */
async function setup([db, webhookUrl, backlogText, ledgerText]: string[]): Promise<void> {
  const { openStore } = await import('../src/db/store.ts');
  const { createProject } = await import('../src/domain/project/projects.ts');
  const { upsertMember } = await import('../src/domain/members/members.ts');
  const { createWebhook } = await import('../src/webhooks/subscriptions.ts');
  const { emit } = await import('../src/domain/events/record-event.ts');
  const { adjustPoints } = await import('../src/domain/ledger/ledger.ts');
  const store = await openStore({ path: db!, masterKey: BENCH_MASTER_KEY });
  const now = new Date();
  const created = createProject(store.db, store.box, { name: 'Backlog' }, now);
  store.db.transaction(() => {
    for (let i = 0; i < MEMBERS; i++) upsertMember(store.db, created.project.id, { externalId: `member-${i}` }, now);
  }).immediate();
  // The ledger first, while no webhook subscribes: these awards write no events.
  const ledger = Number(ledgerText);
  for (let done = 0; done < ledger; done += 10_000) {
    store.db.transaction(() => {
      for (let i = done; i < Math.min(ledger, done + 10_000); i++) adjustPoints(store.db, created.project.id, `member-${i % MEMBERS}`, { amount: 1 }, 'bench', now);
    }).immediate();
  }
  store.db.transaction(() => {
    createWebhook(store.db, store.box, created.project.id, { url: webhookUrl!, events: ['points.awarded'] }, now);
  }).immediate();
  const backlog = Number(backlogText);
  for (let done = 0; done < backlog; done += 10_000) {
    store.db.transaction(() => {
      for (let i = done; i < Math.min(backlog, done + 10_000); i++) {
        emit(store.db, created.project.id, 'points.awarded', { externalId: `member-${i % MEMBERS}`, pointsAwarded: 1, seq: i }, now);
      }
    }).immediate();
  }
  store.close();
  console.log(JSON.stringify({ secretKey: created.secretKey }));
}

/** A new database set up, then the built server on it. */
async function startChild(dir: string, webhookUrl: string, backlog: number, ledger: number): Promise<BuiltServer> {
  const db = join(dir, `b-${Date.now()}.db`);
  return startBuiltServer(db, await setUp(SELF, [db, webhookUrl, String(backlog), String(ledger)]));
}

/** An endpoint that either answers 200 at once, counting, or accepts and never answers. */
async function startEndpoint(blackHole: boolean) {
  let received = 0;
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      if (!blackHole) res.writeHead(200).end();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    received: () => received,
    close() {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const rss = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

interface Steady { p50: number; p99: number; errors: number; cpuUs: number }

/** Awards at `rate`/s for `seconds`, open loop; p50 and p99 from each award's due time, in ms; the server's CPU per award (runner included). */
async function steady(child: BuiltServer, rate: number, seconds: number, onTick?: () => void): Promise<Steady> {
  const cpuBefore = cpuMs(child.pid);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const latencies: number[] = [];
  let errors = 0;
  let pending = 0;
  const start = performance.now();
  const total = rate * seconds;
  for (let n = 0; n < total; n++) {
    const due = start + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    if (n % rate === 0) onTick?.();
    pending++;
    const req = request(`${child.url}/api/v1/members/member-${n % MEMBERS}/points`, {
      method: 'POST', agent, headers: { authorization: `Bearer ${child.secretKey}`, 'content-type': 'application/json' },
    }, (res) => {
      res.resume();
      res.on('end', () => {
        pending--;
        if (res.statusCode !== 200) errors++;
        latencies.push(performance.now() - due);
      });
    });
    req.on('error', () => {
      pending--;
      errors++;
    });
    req.end('{"amount":1}');
  }
  while (pending > 0) await sleep(10);
  agent.destroy();
  latencies.sort((a, b) => a - b);
  const cpuUs = ((cpuMs(child.pid) - cpuBefore) * 1000) / total;
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), errors, cpuUs };
}

async function main(): Promise<void> {
  const backlog = arg('backlog', 200_000);
  const seconds = arg('seconds', 20);
  const rate = arg('rate', 200);
  const ledger = arg('ledger', 150_000);
  buildServer();
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-backlog-'));
  const fmt = (r: Steady) => `p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, server CPU ${Math.round(r.cpuUs)} µs/award${r.errors ? `, ${r.errors} errors` : ''}`;
  try {
    console.log(`${rate} awards/s for ${seconds} s each, open loop; ${builtServerName} pinned to CPU 0; ${ledger.toLocaleString('en')} ledger rows`);
    // --drain-only: only part 2 (the healthy drain), for iterating on it.
    const dead = await startEndpoint(true);
    for (const waiting of process.argv.includes('--drain-only') ? [] : [0, backlog, 0]) {
      const child = await startChild(dir, dead.url, waiting, ledger);
      const cold = await steady(child, rate, 3); // also the warm-up: the runner's first claims, the JIT
      console.log(`1. black-holed endpoint, ${waiting.toLocaleString('en')} waiting: ${fmt(await steady(child, rate, seconds))}; first 3 s after start ${fmt(cold)}`);
      await stopServer(child);
    }
    dead.close();

    const healthy = await startEndpoint(false);
    const child = await startChild(dir, healthy.url, backlog, ledger);
    let peak = 0;
    const watch = setInterval(() => { peak = Math.max(peak, rss(child.pid)); }, 100);
    const startedAt = performance.now();
    const cold = await steady(child, rate, 3);
    const underLoad = await steady(child, rate, Math.min(seconds, 10));
    const duringDrain = healthy.received();
    while (healthy.received() < backlog) await sleep(50);
    const drainSeconds = (performance.now() - startedAt) / 1000;
    clearInterval(watch);
    console.log(`2. ${backlog.toLocaleString('en')} waiting for a healthy endpoint after a restart: awards during the drain ${fmt(underLoad)} `
      + `(first 3 s after start ${fmt(cold)}; ${duringDrain.toLocaleString('en')} delivered meanwhile); all delivered in ${drainSeconds.toFixed(1)} s `
      + `(${Math.round(backlog / drainSeconds).toLocaleString('en')}/s overall); peak RSS ${peak.toFixed(0)} MiB`);
    await stopServer(child);
    const idle = await startChild(dir, healthy.url, backlog, ledger);
    const before = healthy.received();
    const idleStart = performance.now();
    let idlePeak = 0;
    const idleWatch = setInterval(() => { idlePeak = Math.max(idlePeak, rss(idle.pid)); }, 100);
    while (healthy.received() - before < backlog) await sleep(20);
    clearInterval(idleWatch);
    const idleSeconds = (performance.now() - idleStart) / 1000;
    console.log(`   idle drain: ${Math.round(backlog / idleSeconds).toLocaleString('en')} deliveries/s, peak RSS ${idlePeak.toFixed(0)} MiB`);
    await stopServer(idle);
    healthy.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'setup') await setup(process.argv.slice(3));
else await main();
