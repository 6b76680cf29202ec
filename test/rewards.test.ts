import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, TestClock, tableCounts, type TestServer } from './helpers/server.ts';

let server: TestServer;
const clock = new TestClock(new Date('2026-05-01T10:00:00.000Z'));
const iso = (offsetMs: number) => new Date(clock.current.getTime() + offsetMs).toISOString();

beforeAll(async () => {
  server = await startTestServer({ clock });
  server.ctx.db.prepare(`INSERT INTO webhooks (id, project_id, url, events, secret, created_at, updated_at)
    VALUES ('whk_test', ?, 'https://hooks.example/in', ?, 'x', ?, ?)`).run(server.projectId, JSON.stringify(['reward.redeemed']), iso(0), iso(0));
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

const createReward = async (body: Record<string, unknown>) => {
  const res = await server.api.post('/api/v1/rewards', body);
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
};
const memberWith = async (externalId: string, points: number) => {
  await server.api.post('/api/v1/members', { externalId });
  if (points > 0) expect((await server.api.post(`/api/v1/members/${externalId}/points`, { amount: points })).status).toBe(200);
};
const redeem = (rewardId: string, externalId: string) => server.api.post(`/api/v1/rewards/${rewardId}/redeem`, { externalId });
const events = (type: string) => (server.ctx.db.prepare('SELECT data FROM events WHERE type = ? ORDER BY id').all(type) as { data: string }[])
  .map((row) => JSON.parse(row.data) as Record<string, unknown>);

describe('POST /rewards/{id}/redeem', () => {
  it('spends the cost (REDEEMED), takes one from the stock, gives a coupon a unique readable code and emits reward.redeemed', async () => {
    const id = await createReward({ name: '10% off', type: 'COUPON', pointsCost: 100, stock: 5, discountConfig: { type: 'PERCENTAGE', value: 10 } });
    await memberWith('alice', 250);
    const res = await redeem(id, 'alice');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, claim: { id: expect.stringMatching(/^clm_/), pointsSpent: 100, reward: { id, name: '10% off', type: 'COUPON' } },
      member: { externalId: 'alice', points: 150 } });
    expect(res.body.claim.couponCode).toMatch(/^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/);
    const again = await redeem(id, 'alice');
    expect(again.body.claim.couponCode).not.toBe(res.body.claim.couponCode);
    expect((await server.api.get(`/api/v1/rewards/${id}`)).body.stock).toBe(3);
    const history = await server.api.get('/api/v1/members/alice/points?history=true');
    expect(history.body.transactions[0]).toMatchObject({ amount: -100, type: 'REDEEMED', source: 'reward', referenceId: id });
    expect(events('reward.redeemed')[0]).toMatchObject({ externalId: 'alice', rewardId: id, rewardName: '10% off', pointsSpent: 100,
      couponCode: res.body.claim.couponCode, claimId: res.body.claim.id });
  });

  it('reveals DIGITAL content only in the claim, and PHYSICAL claims start PENDING', async () => {
    const digital = await createReward({ name: 'E-book', type: 'DIGITAL', pointsCost: 10, digitalContent: 'https://dl.example/book?t=secret' });
    const physical = await createReward({ name: 'Mug', type: 'PHYSICAL', pointsCost: 10 });
    await memberWith('bob', 100);
    const view = await server.api.get('/api/v1/members/bob/rewards');
    expect(JSON.stringify(view.body)).not.toContain('secret');
    const claim = await redeem(digital, 'bob');
    expect(claim.body.claim).toMatchObject({ digitalContent: 'https://dl.example/book?t=secret', status: 'COMPLETED' });
    expect(claim.body.claim.couponCode).toBeUndefined();
    expect((await redeem(physical, 'bob')).body.claim).toMatchObject({ status: 'PENDING', pointsSpent: 10 });
    const claims = await server.api.get('/api/v1/members/bob/claims');
    expect(claims.body.claims.map((c: { reward: { name: string } }) => c.reward.name)).toEqual(['Mug', 'E-book']);
  });

  it('answers 400 when the balance is too low, 409 out of stock or over maxClaimsPerUser, 403 below minLevel or unavailable, 404 unknown', async () => {
    await memberWith('carol', 50);
    const dear = await createReward({ name: 'Dear', type: 'CUSTOM', pointsCost: 60 });
    const before = tableCounts(server);
    const poor = await redeem(dear, 'carol');
    expect([poor.status, poor.body.error]).toEqual([400, 'Insufficient points']);
    const empty = await createReward({ name: 'Gone', type: 'CUSTOM', pointsCost: 1, stock: 0 });
    expect((await redeem(empty, 'carol')).status).toBe(409);
    const once = await createReward({ name: 'Once', type: 'CUSTOM', pointsCost: 1, maxClaimsPerUser: 1 });
    expect((await redeem(once, 'carol')).status).toBe(200);
    const twice = await redeem(once, 'carol');
    expect(twice.status).toBe(409);
    expect(twice.body.message).toContain('most allowed');
    await server.api.post('/api/v1/levels', { level: 1, name: 'Silver', minTotalPointsEarned: 1000 });
    const vip = await createReward({ name: 'VIP', type: 'CUSTOM', pointsCost: 1, minLevel: 1 });
    expect((await redeem(vip, 'carol')).status).toBe(403);
    const off = await createReward({ name: 'Off', type: 'CUSTOM', pointsCost: 1, isActive: false });
    expect((await redeem(off, 'carol')).status).toBe(403);
    const expired = await createReward({ name: 'Old', type: 'CUSTOM', pointsCost: 1, expiresAt: iso(60_000) });
    clock.advance(120_000);
    expect((await redeem(expired, 'carol')).status).toBe(403);
    const archived = await createReward({ name: 'Archived', type: 'CUSTOM', pointsCost: 1 });
    await server.api.delete(`/api/v1/rewards/${archived}`);
    expect((await redeem(archived, 'carol')).status).toBe(403);
    expect((await redeem('rwd_nope', 'carol')).status).toBe(404);
    expect((await redeem(dear, 'nobody')).status).toBe(404);
    const after = tableCounts(server);
    // Only the one successful claim of "Once" wrote anything.
    expect(after.reward_claims! - before.reward_claims!).toBe(1);
    expect(after.transactions! - before.transactions!).toBe(1);

    const views = await server.api.get('/api/v1/members/carol/rewards');
    expect(views.status).toBe(200);
    const byName = Object.fromEntries(views.body.rewards.map((r: { name: string }) => [r.name, r]));
    expect(byName.Dear).toMatchObject({ canClaim: false, affordableIn: 11, stockRemaining: null, userClaims: 0, levelRequired: false });
    expect(byName.Once).toMatchObject({ canClaim: false, userClaims: 1, maxClaimsPerUser: 1, affordableIn: 0 });
    expect(byName.VIP).toMatchObject({ canClaim: false, levelRequired: true, minLevel: 1 });
    expect(byName.Gone).toMatchObject({ canClaim: false, stockRemaining: 0 });
    expect(byName.Off).toBeUndefined();
    expect(byName.Old).toBeUndefined();
    expect(byName.Archived).toBeUndefined();
  });

  it('50 members claiming a reward with stock 10 at once: exactly 10 claims and exact balances', async () => {
    const id = await createReward({ name: 'Limited', type: 'CUSTOM', pointsCost: 30, stock: 10 });
    const names = Array.from({ length: 50 }, (_, i) => `racer-${i}`);
    for (const name of names) await memberWith(name, 40);
    const results = await Promise.all(names.map((name) => redeem(id, name)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 200)).toHaveLength(10);
    expect(statuses.filter((s) => s === 409)).toHaveLength(40);
    const winners = new Set(results.filter((r) => r.status === 200).map((r) => r.body.member.externalId as string));
    for (const name of names) {
      const points = (await server.api.get(`/api/v1/members/${name}`)).body.points;
      expect(points, name).toBe(winners.has(name) ? 10 : 40);
    }
    expect(server.ctx.db.prepare('SELECT count(*) AS n FROM reward_claims WHERE reward_id = ?').get(id)).toEqual({ n: 10 });
    expect((await server.api.get(`/api/v1/rewards/${id}`)).body.stock).toBe(0);
  });
});

describe('idempotency', () => {
  it('a retried claim with the same Idempotency-Key answers the first claim again and spends once', async () => {
    const id = await createReward({ name: 'Retry-safe', type: 'COUPON', pointsCost: 5 });
    await memberWith('retrier', 20);
    const send = () => server.api.post(`/api/v1/rewards/${id}/redeem`, { externalId: 'retrier' }, { headers: { 'idempotency-key': 'claim-1' } });
    const first = await send();
    const second = await send();
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body.claim).toEqual(first.body.claim);
    expect((await server.api.get('/api/v1/members/retrier')).body.points).toBe(15);
  });
});

describe('bad input and tenancy', () => {
  it('answers 400 naming the field and writes nothing', async () => {
    const id = await createReward({ name: 'Any', type: 'CUSTOM', pointsCost: 1 });
    const before = tableCounts(server);
    for (const body of [{}, { externalId: '' }, { externalId: 5 }, { externalId: 'alice', extra: 1 }]) {
      const res = await server.api.post(`/api/v1/rewards/${id}/redeem`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(/externalId|extra/);
    }
    expect(tableCounts(server)).toEqual(before);
  });

  it("another project's reward or member answers 404 and changes nothing", async () => {
    const b = server.addProject('Tenant B');
    const foreign = (await b.api.post('/api/v1/rewards', { name: 'B', type: 'CUSTOM', pointsCost: 1, stock: 3 })).body.id as string;
    await b.api.post('/api/v1/members', { externalId: 'b-member' });
    await b.api.post('/api/v1/members/b-member/points', { amount: 10 });
    await memberWith('a-member', 10);
    const before = tableCounts(server);
    expect((await redeem(foreign, 'a-member')).status).toBe(404);
    const own = await createReward({ name: 'A', type: 'CUSTOM', pointsCost: 1 });
    expect((await redeem(own, 'b-member')).status).toBe(404);
    expect((await server.api.get('/api/v1/members/b-member/rewards')).status).toBe(404);
    expect((await server.api.get('/api/v1/members/b-member/claims')).status).toBe(404);
    expect(tableCounts(server)).toEqual({ ...before, rewards: before.rewards! + 1, projects: before.projects });
    expect((await b.api.get(`/api/v1/rewards/${foreign}`)).body.stock).toBe(3);
    expect((await b.api.get('/api/v1/members/b-member')).body.points).toBe(10);
  });
});
