import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLAIM_PLANS } from '../src/webhooks/deliveries.ts';
import { pruneWebhookDeliveries } from '../src/webhooks/housekeeping.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

let server: TestServer;
let receiver: Receiver;
let clock: TestClock;
let t0: number;
let warnings: string[];

// The runner is driven by hand (runDue) under a clock the test moves; attempts time out after 300 ms.
beforeEach(async () => {
  clock = new TestClock(new Date('2026-03-01T09:00:00.000Z'));
  t0 = clock.current.getTime();
  warnings = [];
  const log = { info: () => undefined, error: () => undefined, warn: (message: string) => warnings.push(message) };
  server = await startTestServer({ clock, webhooks: { runner: false, timeoutMs: 300, log } });
  receiver = await startReceiver();
  await server.api.post('/api/v1/members', { externalId: 'eve' });
});
afterEach(async () => {
  await server.stop();
  await receiver.close();
});

const MIN = 60_000;
const at = (ms: number) => new Date(t0 + ms).toISOString();
/** Moves the clock to t0 + ms and runs whatever is due; resolves with how many attempts ran. */
async function runAt(ms: number): Promise<number> {
  clock.current = new Date(t0 + ms);
  return server.deliveries.runDue();
}
const deliveries = () => server.ctx.db.prepare(`SELECT d.status, d.attempts, d.run_at, d.last_status, d.last_error
  FROM webhook_deliveries d ORDER BY d.id`).all() as { status: string; attempts: number; run_at: string; last_status: number | null; last_error: string | null }[];

async function subscribe(events = ['points.awarded']) {
  const created = await server.api.post('/api/v1/webhooks', { url: receiver.url, events });
  expect(created.status).toBe(201);
  return created.body as { id: string; secret: string };
}

describe('retries', () => {
  it('retries a 500 after 1 min and a timeout after 5 min more, then delivers the same body', async () => {
    receiver.setBehaviour((_, n) => (n === 0 ? 500 : n === 1 ? 'hang' : 200));
    await subscribe();
    await server.api.post('/api/v1/members/eve/points', { amount: 5 });

    expect(await runAt(0)).toBe(1);
    expect(deliveries()).toEqual([{ status: 'pending', attempts: 1, run_at: at(MIN), last_status: 500, last_error: 'http_500 (Internal Server Error)' }]);

    expect(await runAt(MIN - 1)).toBe(0); // not yet due
    expect(await runAt(MIN)).toBe(1); // the receiver never answers: 300 ms timeout
    expect(deliveries()).toEqual([{ status: 'pending', attempts: 2, run_at: at(6 * MIN), last_status: null, last_error: 'timeout (no answer within 300 ms)' }]);

    expect(await runAt(6 * MIN - 1)).toBe(0);
    expect(await runAt(6 * MIN)).toBe(1);
    expect(deliveries()).toMatchObject([{ status: 'delivered', attempts: 3, last_status: 200, last_error: null }]);

    expect(receiver.received).toHaveLength(3);
    const [first, second, third] = receiver.received;
    // The same event, byte for byte; only the Standard Webhooks timestamp says when each attempt was.
    expect(second!.raw).toBe(first!.raw);
    expect(third!.raw).toBe(first!.raw);
    expect(receiver.received.map((r) => Number(r.headers['webhook-timestamp']) * 1000 - t0)).toEqual([0, MIN, 6 * MIN]);
    expect(await runAt(10 * MIN)).toBe(0);
  });

  it('lets one bad delivery die without disabling its endpoint: later events are delivered', async () => {
    // The receiver rejects one odd payload (amount 13) and takes everything else.
    receiver.setBehaviour((request) => (request.body.data.pointsAwarded === 13 ? 422 : 200));
    const webhook = await subscribe();
    await server.api.post('/api/v1/members/eve/points', { amount: 13 });
    for (const ms of [0, MIN, 6 * MIN, 36 * MIN, 156 * MIN]) expect(await runAt(ms)).toBe(1);
    expect(deliveries().map((d) => [d.status, d.attempts, d.last_error])).toEqual([['dead', 5, 'http_422 (Unprocessable Entity)']]);
    expect((await server.api.get(`/api/v1/webhooks/${webhook.id}`)).body).toMatchObject({ isActive: true, state: 'failing', failingSince: at(0) });

    await server.api.post('/api/v1/members/eve/points', { amount: 2 });
    expect(await runAt(157 * MIN)).toBe(1);
    expect(deliveries().map((d) => d.status)).toEqual(['dead', 'delivered']);
    expect((await server.api.get(`/api/v1/webhooks/${webhook.id}`)).body).toMatchObject({ isActive: true, state: 'active', failingSince: null, failedAt: null });
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`^webhook ${webhook.id}: failing \\(http_422 \\(Unprocessable Entity\\)\\); it is disabled if nothing succeeds for 5 days$`))]);
  });

  it('disables after 5 days without a success across several deliveries, warns twice, queues nothing more, and resends on request', async () => {
    receiver.setBehaviour(() => 503);
    const webhook = await subscribe();
    const DAY = 24 * 60 * MIN;
    // One award a day; each delivery runs its five attempts and dies.
    for (const day of [0, 1, 2, 3]) {
      clock.current = new Date(t0 + day * DAY);
      await server.api.post('/api/v1/members/eve/points', { amount: 1 });
      for (const ms of [0, MIN, 6 * MIN, 36 * MIN, 156 * MIN]) expect(await runAt(day * DAY + ms)).toBe(1);
    }
    expect((await server.api.get(`/api/v1/webhooks/${webhook.id}`)).body).toMatchObject({ isActive: true, state: 'failing', failingSince: at(0) });
    expect(warnings).toHaveLength(1);

    // Day 5: the first failure past five days disables it.
    clock.current = new Date(t0 + 5 * DAY);
    await server.api.post('/api/v1/members/eve/points', { amount: 1 });
    expect(await runAt(5 * DAY)).toBe(1);
    const disabled = (await server.api.get(`/api/v1/webhooks/${webhook.id}`)).body;
    expect(disabled).toMatchObject({ isActive: false, state: 'disabled', failingSince: at(0), failedAt: at(5 * DAY),
      lastError: `Disabled: nothing delivered since ${at(0)} (5 deliveries failed; last: http_503 (Service Unavailable))` });
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toMatch(new RegExp(`^webhook ${webhook.id}: disabled, nothing delivered since`));

    // Nothing more is queued or sent.
    const rows = deliveries().length;
    await server.api.post('/api/v1/members/eve/points', { amount: 1 });
    expect(deliveries()).toHaveLength(rows);
    expect(await runAt(6 * DAY)).toBe(0);

    // Re-enabled with resendFailed: the four dead deliveries go out again with the held fifth.
    receiver.setBehaviour(() => 200);
    const enabled = await server.api.patch(`/api/v1/webhooks/${webhook.id}`, { isActive: true, resendFailed: true });
    expect(enabled.body).toMatchObject({ state: 'active', failingSince: null, failedAt: null, failedWhileDown: { since: at(0), deliveries: 4, resent: 4 } });
    expect(await runAt(6 * DAY + MIN)).toBe(5);
    expect(deliveries().map((d) => d.status)).toEqual(Array(5).fill('delivered'));
    expect(warnings).toHaveLength(2);
  });

  it('disables at once on 410 Gone', async () => {
    receiver.setBehaviour(() => 410);
    const webhook = await subscribe();
    await server.api.post('/api/v1/members/eve/points', { amount: 1 });
    expect(await runAt(0)).toBe(1);
    expect((await server.api.get(`/api/v1/webhooks/${webhook.id}`)).body).toMatchObject({ state: 'disabled', lastError: 'Disabled: the receiver answered 410 Gone' });
    expect(warnings).toHaveLength(2);
    expect(await runAt(MIN)).toBe(0);
  });

  it('keeps other endpoints flowing while one hangs', async () => {
    const slow = await startReceiver(() => 'hang');
    try {
      await server.api.post('/api/v1/webhooks', { url: slow.url, events: ['points.awarded'] });
      await subscribe();
      for (let i = 0; i < 3; i++) await server.api.post('/api/v1/members/eve/points', { amount: 1 });
      expect(await runAt(0)).toBe(6);
      expect(receiver.received).toHaveLength(3);
      expect(slow.received).toHaveLength(3);
      // Side by side, not in a row: the other endpoint's requests arrived while the hung endpoint's
      // first attempt was still waiting for its 300 ms timeout. Arrival order, not a wall-clock
      // budget, so a busy machine cannot fail it. (An endpoint that never answered holds at most
      // two slots, so its third attempt waits for one of them.)
      const firstHangEnds = slow.received[0]!.at + 300;
      expect(receiver.received.every((request) => request.at < firstHangEnds)).toBe(true);
    } finally {
      await slow.close();
    }
  });
});

describe('housekeeping', () => {
  it('prunes delivered rows older than the retention with their events, and keeps dead and recent ones', async () => {
    const webhook = await subscribe(['points.awarded', 'points.deducted']);
    await server.api.post('/api/v1/members/eve/points', { amount: 5 }); // delivered at 0
    expect(await runAt(0)).toBe(1);
    receiver.setBehaviour(() => 500);
    await server.api.post('/api/v1/members/eve/points', { amount: -1 }); // dies after five attempts
    for (const ms of [0, MIN, 6 * MIN, 36 * MIN, 156 * MIN]) await runAt(ms);
    await server.api.patch(`/api/v1/webhooks/${webhook.id}`, { isActive: true });
    receiver.setBehaviour(() => 200);
    await server.api.post('/api/v1/members/eve/points', { amount: 2 }); // delivered 6 days later
    expect(await runAt(6 * 24 * 60 * MIN)).toBe(1);

    const week = 7 * 24 * 60 * MIN;
    expect(await pruneWebhookDeliveries(server.ctx.write, server.ctx.db, new Date(t0 + week + MIN), week)).toBe(1);
    expect(deliveries().map((d) => d.status)).toEqual(['dead', 'delivered']);
    const events = server.ctx.db.prepare('SELECT type FROM events ORDER BY id').pluck().all();
    expect(events).toEqual(['points.deducted', 'points.awarded']);

    // Dead rows have a retention too (30 days by default), counted from their last attempt.
    const dead = new Date(t0 + 156 * MIN);
    expect(await pruneWebhookDeliveries(server.ctx.write, server.ctx.db, new Date(dead.getTime() + 30 * 24 * 60 * MIN - 1), week)).toBe(1);
    expect(deliveries().map((d) => d.status)).toEqual(['dead']);
    expect(await pruneWebhookDeliveries(server.ctx.write, server.ctx.db, new Date(dead.getTime() + 30 * 24 * 60 * MIN + 1), week)).toBe(1);
    expect(deliveries()).toEqual([]);
    expect(server.ctx.db.prepare('SELECT count(*) FROM events').pluck().get()).toBe(0);
  });

});

describe('the claim with a backlog', () => {
  it('reaches each endpoint through its own index, so a dead endpoint\'s waiting rows cost nothing', async () => {
    const webhook = await subscribe();
    // 20,000 waiting deliveries of one endpoint, as a black-holed receiver leaves them.
    const db = server.ctx.db;
    const event = db.prepare("INSERT INTO events (public_id, project_id, type, data, created_at) VALUES ('evt_backlog', ?, 'points.awarded', '{}', ?) RETURNING id")
      .pluck().get(server.projectId, at(0)) as number;
    const insert = db.prepare(`INSERT INTO webhook_deliveries (public_id, project_id, webhook_id, event_id, status, attempts, run_at, created_at)
      VALUES (?, ?, ?, ?, 'pending', 0, ?, ?)`);
    db.transaction(() => {
      for (let i = 0; i < 20_000; i++) insert.run(`dlv_backlog${i}`, server.projectId, webhook.id, event, at(0), at(0));
    })();
    const plans: [string, unknown[]][] = [
      [CLAIM_PLANS.dueCount, [webhook.id, at(0), 5]],
      [CLAIM_PLANS.endpointClaim, [at(0), webhook.id, 5]],
      [CLAIM_PLANS.nextDue, []],
    ];
    for (const [sql, params] of plans) {
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((row) => row.detail).join('\n');
      expect(plan, sql).toMatch(/webhook_deliveries_webhook_due \(webhook_id=\?/);
      expect(plan, sql).not.toMatch(/SCAN d\b|TEMP B-TREE/);
    }
  });
});
