import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { adjustPoints } from '../src/domain/ledger/ledger.ts';
import { startReceiver, type Receiver, type Received } from './helpers/receiver.ts';
import { startTestServer, tableCounts, type TestServer } from './helpers/server.ts';

let server: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
});
afterAll(async () => {
  await server.stop();
  await receiver.close();
});

const count = (sql: string, ...params: unknown[]) => server.ctx.db.prepare(sql).pluck().get(...params) as number;

/** What a receiver does: recompute both signatures over the raw body (and the body's own field). */
function verify(received: Received, secret: string) {
  const expected = `sha256=${createHmac('sha256', secret).update(received.raw).digest('hex')}`;
  expect(received.headers['x-punchcard-signature']).toBe(expected);
  const withoutField = received.raw.replace(/"signature":"sha256=[0-9a-f]{64}",/, '');
  expect(received.body.signature).toBe(`sha256=${createHmac('sha256', secret).update(withoutField).digest('hex')}`);
  // The third-party Standard Webhooks verifier, fed the raw body and the headers as they arrived.
  const verified = new Webhook(secret).verify(received.raw, received.headers as Record<string, string>);
  expect(verified).toEqual(received.body);
}

describe('webhook management', () => {
  it('creates a webhook, shows its secret once, lists, updates, rotates and deletes it', async () => {
    const created = await server.api.post('/api/v1/webhooks', { url: 'https://93.184.215.14/hooks', events: ['points.awarded', 'points.awarded', 'member.created'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ url: 'https://93.184.215.14/hooks', events: ['points.awarded', 'member.created'], isActive: true, failedAt: null, lastError: null });
    expect(created.body.id).toMatch(/^whk_/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);
    // Stored sealed, never in clear.
    const stored = server.ctx.db.prepare('SELECT secret FROM webhooks WHERE id = ?').pluck().get(created.body.id) as string;
    expect(stored).not.toContain(created.body.secret.slice(6));

    const list = await server.api.get('/api/v1/webhooks');
    expect(list.status).toBe(200);
    expect(list.body.webhooks).toEqual([{ ...created.body, secret: undefined }].map(({ secret, ...rest }) => rest));
    expect(JSON.stringify(list.body)).not.toContain('whsec_');

    const one = await server.api.get(`/api/v1/webhooks/${created.body.id}`);
    expect(one.body).toEqual(list.body.webhooks[0]);

    const patched = await server.api.patch(`/api/v1/webhooks/${created.body.id}`, { events: ['points.deducted'], isActive: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ events: ['points.deducted'], isActive: false });

    const rotated = await server.api.post(`/api/v1/webhooks/${created.body.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.id).toBe(created.body.id);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.body.secret);

    const deleted = await server.api.delete(`/api/v1/webhooks/${created.body.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ success: true, deleted: created.body.id });
    expect((await server.api.get(`/api/v1/webhooks/${created.body.id}`)).status).toBe(404);
    expect((await server.api.get('/api/v1/webhooks')).body).toEqual({ webhooks: [] });
  });

  it('answers 400 naming an unknown event and 409 past the per-project limit', async () => {
    const bad = await server.api.post('/api/v1/webhooks', { url: 'https://93.184.215.14/', events: ['points.awarded', 'points.stolen'] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/"events\.1" is "points\.stolen", not an event/);
    const none = await server.api.post('/api/v1/webhooks', { url: 'https://93.184.215.14/', events: [] });
    expect(none.body.message).toMatch(/"events" must name at least one event/);

    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push((await server.api.post('/api/v1/webhooks', { url: `https://93.184.215.14/${i}`, events: ['badge.awarded'] })).body.id);
    const over = await server.api.post('/api/v1/webhooks', { url: 'https://93.184.215.14/x', events: ['badge.awarded'] });
    expect(over.status).toBe(409);
    for (const id of ids) expect((await server.api.delete(`/api/v1/webhooks/${id}`)).status).toBe(200);
  });
});

describe('events', () => {
  let secret: string;
  let webhookId: string;

  beforeAll(async () => {
    const created = await server.api.post('/api/v1/webhooks', {
      url: receiver.url, events: ['member.created', 'member.updated', 'points.awarded', 'points.deducted'],
    });
    expect(created.status).toBe(201);
    ({ secret, id: webhookId } = created.body);
  });

  it('delivers each event once with the documented data, signed three ways', async () => {
    receiver.received.length = 0;
    const member = await server.api.post('/api/v1/members', { externalId: 'ann', email: 'ann@example.com', name: 'Ann' });
    const award = await server.api.post('/api/v1/members/ann/points', { amount: 40, description: 'Welcome', referenceId: 'order-1' });
    const deduct = await server.api.post('/api/v1/members/ann/points', { amount: -15 });
    const update = await server.api.patch('/api/v1/members/ann', { name: 'Ann B' });
    // Sent before the erasure, which scrubs the member's waiting events (the runner may take its
    // time while requests come, so the test does not race it).
    await server.deliveries.runDue();
    const erase = await server.api.delete('/api/v1/members/ann');
    for (const res of [member, award, deduct, update, erase]) expect(res.status).toBeLessThan(300);

    // Every delivery due now has run and recorded its outcome: what the receiver holds is final.
    await server.deliveries.runDue();
    const received = receiver.received;
    expect(received).toHaveLength(5);
    const byType = (type: string) => received.filter((r) => r.body.type === type);
    expect(received.map((r) => r.body.type).sort()).toEqual(['member.created', 'member.updated', 'member.updated', 'points.awarded', 'points.deducted']);

    for (const r of received) {
      verify(r, secret);
      expect(Object.keys(r.body)).toEqual(['id', 'type', 'timestamp', 'signature', 'data']);
      expect(r.body.id).toMatch(/^evt_/);
      expect(r.headers['webhook-id']).toBe(r.body.id);
      expect(r.headers['x-punchcard-event']).toBe(r.body.type);
      expect(r.headers['x-punchcard-delivery']).toMatch(/^dlv_/);
      expect(r.headers['content-type']).toBe('application/json');
    }
    const memberId = member.body.id;
    expect(byType('member.created')[0]!.body.data).toEqual({ memberId, externalId: 'ann', member: member.body });
    expect(byType('points.awarded')[0]!.body.data).toEqual({
      memberId, externalId: 'ann', pointsAwarded: 40, newBalance: 40, transactionId: award.body.transaction.id,
      type: 'EARNED', source: 'api', description: 'Welcome', referenceId: 'order-1',
    });
    expect(byType('points.deducted')[0]!.body.data).toMatchObject({ memberId, externalId: 'ann', pointsDeducted: 15, newBalance: 25, transactionId: deduct.body.transaction.id });
    const [updated, erased] = byType('member.updated');
    expect(updated!.body.data).toEqual({ memberId, externalId: 'ann', member: update.body });
    expect(erased!.body.data).toMatchObject({ memberId, externalId: memberId, erased: true, member: { id: memberId, email: null, name: null } });

    const rows = server.ctx.db.prepare('SELECT status, attempts, last_status FROM webhook_deliveries WHERE webhook_id = ?').all(webhookId);
    expect(rows).toEqual(Array(5).fill({ status: 'delivered', attempts: 1, last_status: 200 }));
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('enqueues nothing for a rolled-back change, even next to a committed one in the same group commit', async () => {
    await server.api.post('/api/v1/members', { externalId: 'bo' });
    await receiver.waitFor(receiver.received.length + 1);
    const before = tableCounts(server);
    const over = await server.api.post('/api/v1/members/bo/points', { amount: -5 });
    expect(over.status).toBe(400);
    expect(tableCounts(server)).toEqual(before);

    // Fired together: they land in one batch, each in its own savepoint.
    const results = await Promise.all([
      server.api.post('/api/v1/members/bo/points', { amount: 7 }),
      server.api.post('/api/v1/members/bo/points', { amount: -500 }),
      server.api.post('/api/v1/members/bo/points', { amount: 3 }),
    ]);
    expect(results.map((r) => r.status)).toEqual([200, 400, 200]);
    // And certainly in one batch: writes queued in the same turn share a transaction.
    const sameBatch = await Promise.allSettled([
      server.ctx.write(() => adjustPoints(server.ctx.db, server.projectId, 'bo', { amount: -1000 }, 'test', server.clock.now())),
      server.ctx.write(() => adjustPoints(server.ctx.db, server.projectId, 'bo', { amount: 11 }, 'test', server.clock.now())),
    ]);
    expect(sameBatch.map((r) => r.status)).toEqual(['rejected', 'fulfilled']);
    expect(count("SELECT count(*) FROM events WHERE type LIKE 'points.%' AND json_extract(data, '$.externalId') = 'bo'")).toBe(3);
    const forBoSoFar = () => receiver.received.filter((r) => r.body.data.externalId === 'bo' && r.body.type.startsWith('points.'));
    await server.deliveries.runDue();
    const forBo = forBoSoFar();
    expect(forBo.map((r) => r.body.data.pointsAwarded).sort((x: number, y: number) => x - y)).toEqual([3, 7, 11]);
  });

  it('sends an event only to the webhooks subscribed to it', async () => {
    const other = await startReceiver();
    try {
      const only = await server.api.post('/api/v1/webhooks', { url: other.url, events: ['points.deducted'] });
      await server.api.post('/api/v1/members', { externalId: 'cy' });
      await server.api.post('/api/v1/members/cy/points', { amount: 10 });
      await server.api.post('/api/v1/members/cy/points', { amount: -4 });
      await server.deliveries.runDue();
      expect(other.received.map((r) => r.body.type)).toEqual(['points.deducted']);
      verify(other.received[0]!, only.body.secret);
      await server.api.delete(`/api/v1/webhooks/${only.body.id}`);
    } finally {
      await other.close();
    }
  });

  it('sends nothing to a paused webhook, and resumes when it is re-enabled', async () => {
    await server.api.patch(`/api/v1/webhooks/${webhookId}`, { isActive: false });
    const before = receiver.received.length;
    await server.api.post('/api/v1/members', { externalId: 'dee' });
    await server.deliveries.runDue();
    expect(receiver.received.length).toBe(before);
    await server.api.patch(`/api/v1/webhooks/${webhookId}`, { isActive: true });
    await server.api.post('/api/v1/members/dee/points', { amount: 1 });
    const [last] = (await receiver.waitFor(before + 1)).slice(-1);
    expect(last!.body.type).toBe('points.awarded');
  });
});

describe('the test endpoint', () => {
  it('sends webhook.test once, synchronously, and reports the outcome', async () => {
    const created = await server.api.post('/api/v1/webhooks', { url: receiver.url, events: ['badge.awarded'] });
    const before = receiver.received.length;
    const res = await server.api.post(`/api/v1/webhooks/${created.body.id}/test`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ success: true, statusCode: 200, error: null });
    expect(res.body.durationMs).toBeGreaterThanOrEqual(0);
    expect(receiver.received).toHaveLength(before + 1);
    const sent = receiver.received.at(-1)!;
    expect(sent.body).toMatchObject({ type: 'webhook.test', data: { webhookId: created.body.id } });
    verify(sent, created.body.secret);

    receiver.setBehaviour(() => 503);
    const failing = await server.api.post(`/api/v1/webhooks/${created.body.id}/test`, {});
    receiver.setBehaviour(() => 200);
    expect(failing.body).toMatchObject({ success: false, statusCode: 503, error: 'http_503 (Service Unavailable)' });
    // Nothing recorded: a test is not an event.
    expect(count('SELECT count(*) FROM webhook_deliveries WHERE webhook_id = ?', created.body.id)).toBe(0);
    await server.api.delete(`/api/v1/webhooks/${created.body.id}`);
  });
});
