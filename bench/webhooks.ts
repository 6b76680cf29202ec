// Outbound webhook benchmark, standalone:  node --import tsx bench/webhooks.ts [--seconds 10] [--latency-only]
//
// 1. Delivery throughput: a server starts on a backlog of 20,000 due deliveries (one webhook,
//    written through emit() before it listens) and drains it into a local receiver: deliveries/s.
// 2. Enqueue-to-delivery latency at a steady rate: awards sent at 200, 500 and 1,000/s (open loop);
//    latency = receiver arrival - the award request's send time (an upper bound: it includes the
//    award request itself). p50/p99.
// 3. The outbox's cost on the award route: wrk against a server with no webhook and against one
//    with a webhook subscribed to points.awarded (its deliveries are sent during the run), twice
//    each, alternating.
// Every server is the one a shop runs (`node cli/punchcard.mjs serve`, the dist/ bundle) in its own
// process pinned to CPU 0 (taskset -c 0), on a database made beforehand through tsx (`webhooks.ts
// setup`); the receiver and the load run in this process / wrk on CPU 1. Targets: >= 1,000
// deliveries/s, p99 < 1 s, cost < 15%.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request, Agent } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildServer, setUp, startBuiltServer, stopServer, type BuiltServer } from './pinned-server.ts';
import { BENCH_MASTER_KEY } from './settings.ts';

const SELF = fileURLToPath(import.meta.url);
const MEMBERS = 1000;
const RATES = [200, 500, 1000];

/** `setup`: a database with members, the webhook unless `none`, and `backlog` deliveries due; prints {secretKey}. */
async function setup([db, webhookUrl, backlogArg]: string[]): Promise<void> {
  const { openStore } = await import('../src/db/store.ts');
  const { createProject } = await import('../src/domain/project/projects.ts');
  const { upsertMember } = await import('../src/domain/members/members.ts');
  const { createWebhook } = await import('../src/webhooks/subscriptions.ts');
  const { emit } = await import('../src/domain/events/record-event.ts');
  const store = await openStore({ path: db!, masterKey: BENCH_MASTER_KEY });
  const now = new Date();
  const created = createProject(store.db, store.box, { name: 'Bench' }, now);
  store.db.transaction(() => {
    for (let i = 0; i < MEMBERS; i++) upsertMember(store.db, created.project.id, { externalId: `member-${i}` }, now);
    if (webhookUrl !== 'none') createWebhook(store.db, store.box, created.project.id, { url: webhookUrl!, events: ['points.awarded'] }, now);
    for (let i = 0; i < Number(backlogArg ?? 0); i++) {
      emit(store.db, created.project.id, 'points.awarded', { externalId: `member-${i % MEMBERS}`, pointsAwarded: 1, seq: i }, now);
    }
  }).immediate();
  store.close();
  console.log(JSON.stringify({ secretKey: created.secretKey }));
}

/** A new database `db` set up, then the built server on it; `runner: 'off'` queues deliveries without sending them. */
async function startChild(db: string, webhookUrl: string, backlog = 0, runner: 'on' | 'off' = 'on'): Promise<BuiltServer> {
  return startBuiltServer(db, await setUp(SELF, [db, webhookUrl, String(backlog)]), runner === 'off' ? ['--no-webhook-runner'] : []);
}

/** A receiver that answers 200 at once and tells `onEvent` about each body. */
async function startReceiver(onEvent: (body: any) => void) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      res.writeHead(200).end();
      onEvent(JSON.parse(Buffer.concat(chunks).toString('utf8')));
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, close: () => { server.closeAllConnections(); server.close(); } };
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function deliveryThroughput(dir: string): Promise<void> {
  const BACKLOG = 20_000;
  let count = 0;
  let first = 0;
  let last = 0;
  const receiver = await startReceiver(() => {
    const now = performance.now();
    if (count++ === 0) first = now;
    last = now;
  });
  const child = await startChild(join(dir, 'drain.db'), receiver.url, BACKLOG);
  const deadline = Date.now() + 120_000;
  while (count < BACKLOG && Date.now() < deadline) await sleep(50);
  await stopServer(child);
  receiver.close();
  const seconds = (last - first) / 1000;
  console.log(`deliveries: drained ${count} of ${BACKLOG} backlog deliveries in ${seconds.toFixed(2)} s = ${Math.round(count / seconds)} deliveries/s`);
}

async function enqueueToDelivery(dir: string, seconds: number, RATE: number): Promise<void> {
  const sentAt = new Map<string, number>();
  const latencies: number[] = [];
  const ackLatencies: number[] = [];
  const arrivals: { memberKey: string; at: number }[] = [];
  const receiver = await startReceiver((body) => arrivals.push({ memberKey: `${body.data.externalId}#${body.data.newBalance}`, at: performance.now() }));
  const child = await startChild(join(dir, `latency-${RATE}.db`), receiver.url);
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  let acknowledged = 0;
  let failed = 0;
  const balances = new Array<number>(MEMBERS).fill(0);
  const award = (member: number) => {
    // Each member's awards are identified by the balance they lead to (awards of 1 point).
    const key = `member-${member}#${++balances[member]!}`;
    sentAt.set(key, performance.now());
    const req = request(`${child.url}/api/v1/members/member-${member}/points`, {
      method: 'POST', agent, headers: { authorization: `Bearer ${child.secretKey}`, 'content-type': 'application/json' },
    }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) acknowledged++;
        else failed++;
        ackLatencies.push(performance.now() - sentAt.get(key)!);
      });
    });
    req.on('error', () => failed++);
    req.end('{"amount":1}');
  };
  // Open loop: every 10 ms, the awards due by then; members in turn so no member has two in flight.
  const started = performance.now();
  let sent = 0;
  while (performance.now() - started < seconds * 1000) {
    const due = Math.floor(((performance.now() - started) / 1000) * RATE);
    for (; sent < due; sent++) award(sent % MEMBERS);
    await sleep(10);
  }
  const deadline = Date.now() + 15_000;
  while (arrivals.length < sent && Date.now() < deadline) await sleep(50);
  await stopServer(child);
  receiver.close();
  agent.destroy();
  for (const { memberKey, at } of arrivals) {
    const sentTime = sentAt.get(memberKey);
    if (sentTime !== undefined) latencies.push(at - sentTime);
  }
  latencies.sort((a, b) => a - b);
  ackLatencies.sort((a, b) => a - b);
  console.log(`enqueue-to-delivery at ${RATE} awards/s for ${seconds} s: sent ${sent}, acknowledged ${acknowledged}, failed ${failed}, delivered ${arrivals.length}; `
    + `p50 ${percentile(latencies, 50).toFixed(1)} ms, p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${latencies.at(-1)?.toFixed(1)} ms `
    + `(the award's own answer: p50 ${percentile(ackLatencies, 50).toFixed(1)} ms, p99 ${percentile(ackLatencies, 99).toFixed(1)} ms)`);
}

/** wrk runs asynchronously: this process also hosts the receiver, which must keep answering. */
async function wrk(child: BuiltServer, dir: string, seconds: number): Promise<number> {
  const script = join(dir, 'award.lua');
  writeFileSync(script, `wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Authorization"] = "Bearer ${child.secretKey}"
request = function()
  return wrk.format(nil, "/api/v1/members/member-" .. math.random(0, ${MEMBERS - 1}) .. "/points", nil, '{"amount":1}')
end
`);
  const run = spawn('taskset', ['-c', '1', 'wrk', '-t1', '-c32', `-d${seconds}s`, '-s', script, child.url]);
  let stdout = '';
  run.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  await new Promise((resolve) => run.once('exit', resolve));
  const rate = /Requests\/sec:\s+([\d.]+)/.exec(stdout)?.[1];
  const non2xx = /Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1];
  if (!rate) throw new Error(`wrk failed: ${stdout}`);
  if (non2xx) console.log(`  (wrk saw ${non2xx} non-2xx answers)`);
  return Number(rate);
}

async function outboxCost(dir: string, seconds: number): Promise<void> {
  if (spawnSync('wrk', ['--version']).error) {
    console.log('award route with/without a webhook: skipped, wrk is not installed (apt-get install -y wrk)');
    return;
  }
  let delivered = 0;
  const receiver = await startReceiver(() => delivered++);
  // `queued`: the webhook is subscribed but the runner is off, so the run pays for the outbox
  // rows alone; `one`: the same process also sends every delivery (the real cost on one core).
  const runs: Record<'none' | 'queued' | 'one', number[]> = { none: [], queued: [], one: [] };
  for (const round of [1, 2]) {
    for (const mode of ['none', 'queued', 'one'] as const) {
      const child = await startChild(join(dir, `cost-${mode}-${round}.db`), mode === 'none' ? 'none' : receiver.url, 0, mode === 'queued' ? 'off' : 'on');
      runs[mode].push(await wrk(child, dir, seconds));
      await stopServer(child);
    }
  }
  receiver.close();
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const none = mean(runs.none);
  const cost = (mode: 'queued' | 'one') => `${(((none - mean(runs[mode])) / none) * 100).toFixed(1)}%`;
  console.log(`award route (wrk -c32, ${seconds} s, 2 runs each, alternating): no webhook ${runs.none.map(Math.round).join(' / ')} req/s; `
    + `one webhook on points.awarded, runner off (enqueue only) ${runs.queued.map(Math.round).join(' / ')} req/s, cost ${cost('queued')}; `
    + `runner on ${runs.one.map(Math.round).join(' / ')} req/s (${delivered} delivered during the runs), cost ${cost('one')}`);
}

async function main(): Promise<void> {
  const secondsFlag = process.argv.indexOf('--seconds');
  const seconds = secondsFlag > 0 ? Number(process.argv[secondsFlag + 1]) : 10;
  const only = process.argv.includes('--latency-only');
  // This process (receiver, latency load) keeps to CPU 1 with wrk, leaving CPU 0 to the server.
  spawnSync('taskset', ['-a', '-cp', '1', String(process.pid)]);
  buildServer();
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-bench-webhooks-'));
  try {
    console.log('webhook bench (the built servers pinned to CPU 0, receiver and load on CPU 1; a shared machine: figures are noisy)');
    if (!only) await deliveryThroughput(dir);
    for (const rate of RATES) await enqueueToDelivery(dir, seconds, rate);
    if (!only) await outboxCost(dir, seconds);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === 'setup') await setup(process.argv.slice(3));
else await main();
