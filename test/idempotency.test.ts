import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DAY_MS } from '../src/shared/clock.ts';
import { once, purgeIdempotencyKeys } from '../src/domain/ledger/idempotency.ts';
import { purgeExpiredIdempotencyKeys } from '../src/jobs/scheduler.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
const transactionCount = () => (server.ctx.db.prepare('SELECT count(*) AS n FROM transactions').get() as { n: number }).n;

beforeAll(async () => {
  server = await startTestServer();
  await server.api.post('/api/v1/members', { externalId: 'bob' });
});
afterAll(() => server.stop());

describe('idempotency', () => {
  it('replays the first response for the same key and body, and writes once', async () => {
    const before = transactionCount();
    const headers = { 'idempotency-key': 'award-1' };
    const first = await server.api.post('/api/v1/members/bob/points', { amount: 10 }, { headers });
    const again = await server.api.post('/api/v1/members/bob/points', { amount: 10 }, { headers });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(transactionCount()).toBe(before + 1);
  });

  it('treats bodies with the same content in another key order as the same request', async () => {
    const headers = { 'idempotency-key': 'award-order' };
    const first = await server.api.post('/api/v1/members/bob/points', { amount: 3, description: 'x' }, { headers });
    const again = await server.api.post('/api/v1/members/bob/points', { description: 'x', amount: 3 }, { headers });
    expect(again.body).toEqual(first.body);
  });

  it('accepts the key as the idempotencyKey body field', async () => {
    const before = transactionCount();
    const first = await server.api.post('/api/v1/members/bob/points', { amount: 5, idempotencyKey: 'body-key' });
    const again = await server.api.post('/api/v1/members/bob/points', { amount: 5, idempotencyKey: 'body-key' });
    expect(again.body).toEqual(first.body);
    expect(transactionCount()).toBe(before + 1);
  });

  it('answers 409 when the same key comes with a different body or route', async () => {
    const headers = { 'idempotency-key': 'award-2' };
    await server.api.post('/api/v1/members/bob/points', { amount: 10 }, { headers });
    const before = transactionCount();
    const other = await server.api.post('/api/v1/members/bob/points', { amount: 11 }, { headers });
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ error: 'Conflict', message: expect.stringMatching(/already used with a different request/) });
    const otherRoute = await server.api.patch('/api/v1/members/bob', { name: 'Bob' }, { headers });
    expect(otherRoute.status).toBe(409);
    expect(transactionCount()).toBe(before);
  });

  it('refuses a header key and a body key that differ', async () => {
    const res = await server.api.post('/api/v1/members/bob/points', { amount: 1, idempotencyKey: 'a' }, { headers: { 'idempotency-key': 'b' } });
    expect(res.status).toBe(400);
  });

  it('runs concurrent duplicates once', async () => {
    const before = transactionCount();
    const headers = { 'idempotency-key': 'burst' };
    const responses = await Promise.all(Array.from({ length: 25 }, () => server.api.post('/api/v1/members/bob/points', { amount: 7 }, { headers })));
    expect(new Set(responses.map((r) => r.status))).toEqual(new Set([200]));
    expect(new Set(responses.map((r) => r.body.transaction.id)).size).toBe(1);
    expect(transactionCount()).toBe(before + 1);
  });

  it('keeps the create status of POST /members on replay', async () => {
    const headers = { 'idempotency-key': 'create-carol' };
    const first = await server.api.post('/api/v1/members', { externalId: 'carol' }, { headers });
    const again = await server.api.post('/api/v1/members', { externalId: 'carol' }, { headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
  });

  it('stores nothing for a failed request, so the same key can be retried once it can succeed', async () => {
    await server.api.post('/api/v1/members', { externalId: 'dave' });
    const headers = { 'idempotency-key': 'spend-dave' };
    const refused = await server.api.post('/api/v1/members/dave/points', { amount: -50 }, { headers });
    expect(refused.status).toBe(400);
    await server.api.post('/api/v1/members/dave/points', { amount: 80 });
    const retried = await server.api.post('/api/v1/members/dave/points', { amount: -50 }, { headers });
    expect(retried.status).toBe(200);
    expect(retried.body.member.points).toBe(30);
  });

  it('forgets keys after 24 hours', async () => {
    const headers = { 'idempotency-key': 'daily' };
    const first = await server.api.post('/api/v1/members/bob/points', { amount: 1 }, { headers });
    server.clock.advance(DAY_MS + 1000);
    const later = await server.api.post('/api/v1/members/bob/points', { amount: 1 }, { headers });
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    expect(later.body.transaction.id).not.toBe(first.body.transaction.id);
    server.clock.advance(DAY_MS + 1000);
    expect(purgeIdempotencyKeys(server.ctx.db, server.clock.now())).toBeGreaterThan(0);
    const left = server.ctx.db.prepare('SELECT count(*) AS n FROM idempotency_keys').get() as { n: number };
    expect(left.n).toBe(0);
  });

  it("stores an award's key as a reference to its ledger row, not a copy, and replays the same answer", async () => {
    await server.api.post('/api/v1/members', { externalId: 'carol', email: 'carol@example.com', name: 'Carol Reference', metadata: { tier: 'gold' } });
    const headers = { 'idempotency-key': 'award-by-reference' };
    const first = await server.api.post('/api/v1/members/carol/points', { amount: 7, description: 'order 1001' }, { headers });
    // Later awards move the balance on; the replay still answers as the first time.
    await server.api.post('/api/v1/members/carol/points', { amount: 3 });
    const again = await server.api.post('/api/v1/members/carol/points', { amount: 7, description: 'order 1001' }, { headers });
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    const row = server.ctx.db.prepare(`SELECT body, transaction_id, length(fingerprint) AS fingerprint, typeof(created_at) AS createdAt,
      length(key) + length(project_id) + length(fingerprint) + length(counters) + 24 AS bytes FROM idempotency_keys WHERE key = ?`).get('award-by-reference') as
      { body: string | null; transaction_id: number | null; fingerprint: number; createdAt: string; bytes: number };
    expect(row).toMatchObject({ body: null, fingerprint: 16, createdAt: 'integer' });
    expect(row.transaction_id).toEqual(expect.any(Number));
    // A JSON copy of this answer was 941 bytes a key; the columns now hold about a tenth of it.
    expect(JSON.stringify(first.body).length).toBeGreaterThan(400);
    expect(row.bytes).toBeLessThan(120);
  });

  it('purges expired keys oldest first, at most 500 per transaction, and keeps those inside the window', async () => {
    const { db } = server.ctx;
    const start = server.clock.now();
    db.prepare('DELETE FROM idempotency_keys').run();
    const record = (prefix: string, count: number, at: Date) => server.ctx.write(() => {
      for (let i = 0; i < count; i++) once(db, { projectId: server.projectId, key: `${prefix}-${i}`, fingerprint: 'ab'.repeat(32) }, at, () => ({ status: 200, body: { i } }));
    });
    await record('old', 1_234, start);
    await record('fresh', 10, new Date(start.getTime() + DAY_MS));
    const batches: number[] = [];
    const write = async <T>(work: () => T): Promise<T> => {
      const removed = await server.ctx.write(work);
      batches.push(removed as number);
      return removed;
    };
    // Not yet due: nothing goes.
    expect(await purgeExpiredIdempotencyKeys(write, db, new Date(start.getTime() + DAY_MS - 1))).toBe(0);
    batches.length = 0;
    expect(await purgeExpiredIdempotencyKeys(write, db, new Date(start.getTime() + DAY_MS + 1))).toBe(1_234);
    expect(batches).toEqual([500, 500, 234]);
    expect(db.prepare("SELECT count(*) FROM idempotency_keys WHERE key LIKE 'fresh-%'").pluck().get()).toBe(10);
    expect(db.prepare('SELECT count(*) FROM idempotency_keys').pluck().get()).toBe(10);
  });
});
