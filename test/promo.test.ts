import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, TestClock, tableCounts, type TestServer } from './helpers/server.ts';

let server: TestServer;
const clock = new TestClock(new Date('2026-06-01T10:00:00.000Z'));
const HOUR = 3_600_000;
const iso = (offsetMs: number) => new Date(clock.current.getTime() + offsetMs).toISOString();

beforeAll(async () => {
  server = await startTestServer({ clock });
  server.ctx.db.prepare(`INSERT INTO webhooks (id, project_id, url, events, secret, created_at, updated_at)
    VALUES ('whk_test', ?, 'https://hooks.example/in', ?, 'x', ?, ?)`).run(server.projectId, JSON.stringify(['promo.redeemed']), iso(0), iso(0));
  for (const externalId of ['ann', 'ben', 'cat', 'dan']) await server.api.post('/api/v1/members', { externalId });
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

const createPromo = async (body: Record<string, unknown>) => {
  const res = await server.api.post('/api/v1/promo-codes', body);
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
};
const redeem = (externalId: string, code: string) => server.api.post('/api/v1/promo-codes/redeem', { externalId, code });

describe('POST /promo-codes/redeem', () => {
  it('awards a POINTS code through earn() (multipliers apply), case-insensitively, once per member, and emits promo.redeemed', async () => {
    const promoId = await createPromo({ code: 'Summer25', rewardType: 'POINTS', points: 25 });
    await server.api.post('/api/v1/multipliers', { name: 'Double', multiplier: 2, startsAt: iso(-HOUR), endsAt: iso(HOUR), sources: ['promo'] });
    const res = await redeem('ann', 'summer25');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({
      redemption: { id: expect.stringMatching(/^prd_/), code: 'Summer25', rewardType: 'POINTS', pointsAwarded: 50, reward: null, redeemedAt: iso(0) },
      member: expect.objectContaining({ externalId: 'ann', points: 50 }),
    });
    const history = await server.api.get('/api/v1/members/ann/points?history=true');
    expect(history.body.transactions[0]).toMatchObject({ amount: 50, source: 'promo', referenceId: promoId, metadata: { basePoints: 25, multiplier: 2 } });
    const again = await redeem('ann', 'SUMMER25');
    expect(again.status).toBe(409);
    expect(again.body.message).toContain('already redeemed');
    const [event] = server.ctx.db.prepare("SELECT data FROM events WHERE type = 'promo.redeemed'").all() as { data: string }[];
    expect(JSON.parse(event!.data)).toMatchObject({ externalId: 'ann', promoCodeId: promoId, code: 'Summer25', pointsAwarded: 50, rewardType: 'POINTS' });
  });

  it('gives a REWARD code its reward as a claim without spending points', async () => {
    const reward = (await server.api.post('/api/v1/rewards', { name: 'Tote bag', type: 'PHYSICAL', pointsCost: 500, stock: 2 })).body.id as string;
    await createPromo({ code: 'FREEBAG', rewardType: 'REWARD', rewardId: reward });
    const res = await redeem('ben', 'freebag');
    expect(res.status, res.text).toBe(200);
    expect(res.body.redemption).toMatchObject({ rewardType: 'REWARD', pointsAwarded: 0, reward: { id: expect.stringMatching(/^clm_/), pointsSpent: 0,
      status: 'PENDING', reward: { id: reward, name: 'Tote bag' } } });
    expect(res.body.member.points).toBe(0);
    expect((await server.api.get('/api/v1/members/ben/claims')).body.claims).toHaveLength(1);
    expect((await server.api.get(`/api/v1/rewards/${reward}`)).body.stock).toBe(1);
  });

  it('answers 404 when unknown, switched off or not yet started (the same answer), 403 once expired, 409 when used up; failures write nothing', async () => {
    await createPromo({ code: 'LATER', rewardType: 'POINTS', points: 5, startsAt: iso(HOUR), expiresAt: iso(2 * HOUR) });
    await createPromo({ code: 'OFF', rewardType: 'POINTS', points: 5, isActive: false });
    await createPromo({ code: 'TWICE', rewardType: 'POINTS', points: 5, maxRedemptions: 2 });
    const before = tableCounts(server);
    const unknown = await redeem('cat', 'nope');
    expect(unknown.status).toBe(404);
    for (const hidden of ['later', 'off']) {
      const res = await redeem('cat', hidden);
      expect({ status: res.status, body: res.body }).toEqual({ status: 404, body: { ...unknown.body, message: unknown.body.message.replace('nope', hidden) } });
    }
    expect((await redeem('nobody', 'twice')).status).toBe(404);
    expect(tableCounts(server)).toEqual(before);

    clock.advance(HOUR);
    expect((await redeem('cat', 'later')).status).toBe(200);
    clock.advance(HOUR);
    expect((await redeem('dan', 'later')).status).toBe(403);

    expect((await redeem('cat', 'twice')).status).toBe(200);
    expect((await redeem('dan', 'twice')).status).toBe(200);
    const used = await redeem('ann', 'twice');
    expect(used.status).toBe(409);
    expect(used.body.message).toContain('used up');
  });

  it('many members racing for a code with maxRedemptions 3: exactly 3 redemptions', async () => {
    await createPromo({ code: 'RACE', rewardType: 'POINTS', points: 7, maxRedemptions: 3 });
    const names = Array.from({ length: 20 }, (_, i) => `promo-racer-${i}`);
    for (const externalId of names) await server.api.post('/api/v1/members', { externalId });
    const results = await Promise.all(names.map((name) => redeem(name, 'race')));
    expect(results.filter((r) => r.status === 200)).toHaveLength(3);
    expect(results.filter((r) => r.status === 409)).toHaveLength(17);
  });
});

describe('bad input and tenancy', () => {
  it('answers 400 naming the field and writes nothing', async () => {
    const before = tableCounts(server);
    for (const [body, field] of [[{ code: 'X' }, 'externalId'], [{ externalId: 'ann' }, 'code'], [{ externalId: 'ann', code: '' }, 'code'],
      [{ externalId: 'ann', code: 7 }, 'code'], [{ externalId: 'ann', code: 'x'.repeat(65) }, 'code']] as const) {
      const res = await server.api.post('/api/v1/promo-codes/redeem', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(field);
    }
    expect(tableCounts(server)).toEqual(before);
  });

  it("another project's code or member answers 404 and changes nothing", async () => {
    const b = server.addProject('Tenant B');
    await b.api.post('/api/v1/promo-codes', { code: 'BONLY', rewardType: 'POINTS', points: 5 });
    await b.api.post('/api/v1/members', { externalId: 'b-member' });
    await createPromo({ code: 'AONLY', rewardType: 'POINTS', points: 5 });
    const before = tableCounts(server);
    expect((await redeem('ann', 'bonly')).status).toBe(404);
    expect((await redeem('b-member', 'aonly')).status).toBe(404);
    expect(tableCounts(server)).toEqual(before);
  });
});
