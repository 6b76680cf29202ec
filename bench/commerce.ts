// Issue 26's targets, in one quick in-process run (npm run bench:commerce): connecting a store and
// claiming a coupon reward against a store that answers in 200 ms (each within 2 s), and a burst of
// 1,000 order deliveries — new orders, status changes, repeats, late arrivals, refunds — processed
// within 5 s with exact balances afterwards. The store is the tests' fake WooCommerce on 127.0.0.1.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os, { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../src/server.ts';
import { client } from '../test/helpers/http.ts';
import { startFakeWooCommerce, wooOrder, type OrderSpec } from '../test/helpers/fake-woocommerce.ts';

const ORDERS = 285; // about 1,000 deliveries
const CONCURRENCY = 32;

const dir = mkdtempSync(join(tmpdir(), 'punchcard-bench-commerce-'));
const store = await startFakeWooCommerce();
const server = await startServer({
  db: join(dir, 'bench.db'), port: 0, host: '127.0.0.1', masterKey: randomBytes(32).toString('hex'), logLevel: 'error', scheduler: false,
  commerce: { allowInsecure: true },
});
const api = client(server.url, server.bootstrap!.secretKey);
const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const start = performance.now();
  const result = await work();
  return [result, performance.now() - start];
};

try {
  store.latencyMs = 200;
  const [connected, connectMs] = await timed(() => api.post('/api/commerce/connect', {
    siteUrl: store.url, consumerKey: store.consumerKey, consumerSecret: store.consumerSecret, organizationId: 'bench',
  }));
  if (connected.status !== 201) throw new Error(`connect: ${connected.text}`);

  const reward = await api.post('/api/v1/rewards', { name: '10% off', type: 'COUPON', pointsCost: 10, discountConfig: { type: 'PERCENTAGE', value: 10 } });
  await api.post('/api/v1/members', { externalId: 'claimer', email: 'claimer@shop.example' });
  await api.post('/api/v1/members/claimer/points', { amount: 100 });
  const [claim, claimMs] = await timed(() => api.post(`/api/v1/rewards/${reward.body.id}/redeem`, { externalId: 'claimer' }));
  if (!claim.body.claim?.couponCode) throw new Error(`claim: ${claim.text}`);
  store.latencyMs = 0;

  // Per order: processing, completed, a repeat of completed, then for every third a refund of 19.80 (of 99.00) and for every
  // fifth a cancellation; the states of every fourth order arrive in reverse. Each order earns 80; the refund takes back 16.
  const deliveries: OrderSpec[][] = [];
  const expected = new Map<string, number>();
  for (let n = 0; n < ORDERS; n++) {
    const id = 10_000 + n;
    const customerId = 1 + n;
    const at = (s: number) => `2026-01-15T12:00:0${s}`;
    const states: OrderSpec[] = [{ id, customerId, status: 'processing', modified: at(1) }, { id, customerId, status: 'completed', modified: at(2) }];
    states.push(states[1]!);
    let points = 80;
    if (n % 3 === 0) {
      states.push({ id, customerId, status: 'completed', refunds: [{ id: 90_000 + n, amount: '19.80' }], modified: at(3) });
      points = 64;
    }
    if (n % 5 === 0) {
      states.push({ id, customerId, status: 'cancelled', refunds: n % 3 === 0 ? [{ id: 90_000 + n, amount: '19.80' }] : [], modified: at(4) });
      points = 0;
    }
    deliveries.push(n % 4 === 0 ? states.reverse() : states);
    expected.set(String(customerId), points);
  }
  const cpuBefore = process.cpuUsage();
  const [, burstMs] = await timed(async () => {
    let next = 0;
    // Each order's deliveries keep their order within one lane (WooCommerce sends one order's changes one after another).
    const lanes = Array.from({ length: CONCURRENCY }, async () => {
      for (;;) {
        const index = next++;
        if (index >= deliveries.length) return;
        for (const spec of deliveries[index]!) {
          const res = await store.deliverOne('order.updated', wooOrder(spec));
          if (res.status !== 200) throw new Error(`delivery: ${res.status} ${JSON.stringify(res.body)}`);
        }
      }
    });
    await Promise.all(lanes);
  });
  const cpu = process.cpuUsage(cpuBefore);
  const sent = deliveries.reduce((sum, d) => sum + d.length, 0);
  let wrong = 0;
  for (const [externalId, points] of expected) {
    const row = server.ctx.db.prepare('SELECT points FROM members WHERE project_id = ? AND external_id = ?').get(server.bootstrap!.project.id, externalId) as { points: number };
    if (row.points !== points) wrong++;
  }
  console.log(JSON.stringify({
    connectMs: Math.round(connectMs), connectTargetMs: 2000,
    couponClaimMs: Math.round(claimMs), couponClaimTargetMs: 2000,
    deliveries: sent, burstMs: Math.round(burstMs), burstTargetMs: 5000, deliveriesPerSecond: Math.round(sent / (burstMs / 1000)),
    // The fake store's signing and sending included: this process is both sides.
    cpuMsPerDelivery: Number(((cpu.user + cpu.system) / 1000 / sent).toFixed(2)), loadAverage1m: os.loadavg()[0],
    membersWithWrongBalance: wrong, storeLatencyMs: 200,
  }, null, 1));
} finally {
  await server.close();
  await store.stop();
  rmSync(dir, { recursive: true, force: true });
}
