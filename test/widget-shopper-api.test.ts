import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { drawRaffle, fulfilClaim } from '../src/domain/rewards/claims.ts';
import { client } from './helpers/http.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';
import { type WidgetSigner, shopperHelpers } from './helpers/widget.ts';

// Issue 25 through the widget API: My rewards (item 2), numbers with their multiplier (item 4),
// history lines the widget words itself (item 10) and the guest view (item 7).

let server: TestServer;
let signer: WidgetSigner;
const MINUTE = 60_000;

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-06-01T10:00:00Z')) });
  signer = { publicKey: server.publishableKey, widgetSecret: server.widgetSecret };
});
afterAll(() => server.stop());

const { shopper, create } = shopperHelpers(() => server, () => signer);

describe('GET /api/widget/claims (My rewards)', () => {
  it('lists every claim newest first with its code, digital content, raffle dates and fulfilment status', async () => {
    const coupon = await create('rewards', { name: 'Ten off', type: 'COUPON', pointsCost: 10, discountConfig: { type: 'FIXED_CART', value: 10 } });
    const ebook = await create('rewards', { name: 'E-book', type: 'DIGITAL', pointsCost: 10, digitalContent: 'https://shop.example/book.pdf' });
    const mug = await create('rewards', { name: 'Mug', type: 'PHYSICAL', pointsCost: 10 });
    const raffle = await create('rewards', { name: 'Bike raffle', type: 'RAFFLE', pointsCost: 10, expiresAt: '2026-06-30T00:00:00.000Z' });
    const w = await shopper('keeper', 100);
    const ids: string[] = [];
    for (const rewardId of [coupon, ebook, mug, raffle]) {
      const res = await w.post('/rewards', { rewardId });
      expect(res.status, res.text).toBe(200);
      ids.push(res.body.claim.id);
      server.clock.advance(MINUTE);
    }
    fulfilClaim(server.ctx.db, server.projectId, ids[2]!, 'SHIPPED', server.clock.now());
    const res = await w.get('/claims');
    expect(res.status, res.text).toBe(200);
    const claims = res.body.claims as Record<string, any>[];
    expect(claims.map((claim) => claim.reward.name)).toEqual(['Bike raffle', 'Mug', 'E-book', 'Ten off']);
    expect(claims[3]).toMatchObject({ status: 'COMPLETED', couponCode: expect.stringMatching(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/), digitalContent: null, raffle: null });
    expect(claims[2]).toMatchObject({ status: 'COMPLETED', couponCode: null, digitalContent: 'https://shop.example/book.pdf' });
    expect(claims[1]).toMatchObject({ status: 'SHIPPED', reward: { type: 'PHYSICAL' } });
    expect(claims[0]).toMatchObject({ status: 'ENTERED', raffle: { closesAt: '2026-06-30T00:00:00.000Z', drawnAt: null } });
    expect(Object.keys(claims[0]!)).not.toContain('externalId');

    drawRaffle(server.ctx.db, server.projectId, raffle, 1, server.clock.now());
    expect((await w.get('/claims')).body.claims[0]).toMatchObject({ status: 'WON', raffle: { drawnAt: server.clock.now().toISOString() } });
    expect((await w.get('/claims?limit=2')).body.claims).toHaveLength(2);
    // Another member sees only their own.
    expect((await (await shopper('stranger')).get('/claims')).body.claims).toEqual([]);
  });
});

describe('base × multiplier = points', () => {
  it('a running multiplier shows in init, in what is promised and in what is paid', async () => {
    const at = server.clock.now().getTime();
    const multiplier = await create('multipliers', { name: 'Double day', multiplier: 2, startsAt: new Date(at - MINUTE).toISOString(), endsAt: new Date(at + 60 * MINUTE).toISOString() });
    const checkinId = await create('games', { name: 'Daily', type: 'DAILY_CHECKIN', checkinPoints: 5 });
    await create('quests', { name: 'Say hi', completionMode: 'SELF_REPORT', points: 7 });
    const w = await shopper('doubler');
    expect((await w.post('/init')).body.activeMultipliers).toEqual([{ name: 'Double day', multiplier: 2, endsAt: new Date(at + 60 * MINUTE).toISOString(), sources: null }]);
    expect((await w.get(`/games/${checkinId}/checkin`)).body).toMatchObject({ todayReward: 5, multiplier: 2 });
    expect((await w.get('/social-share')).body).toMatchObject({ pointsPerShare: 10, multiplier: 2 });
    expect((await w.get('/quests')).body.quests[0]).toMatchObject({ points: 7, multiplier: 2 });
    expect((await w.post(`/games/${checkinId}/checkin`)).body).toMatchObject({ basePoints: 5, multiplier: 2, pointsAwarded: 10 });
    expect((await w.post('/social-share', { platform: 'email' })).body).toMatchObject({ basePoints: 10, multiplier: 2, pointsAwarded: 20 });
    await create('promo-codes', { code: 'DOUBLE', rewardType: 'POINTS', points: 15 });
    expect((await w.post('/promo-code', { code: 'double' })).body).toMatchObject({ basePoints: 15, multiplier: 2, pointsAwarded: 30 });
    expect((await server.api.delete(`/api/v1/multipliers/${multiplier}`)).status).toBe(200);
  });
});

describe('history entries', () => {
  it('carry a kind and parameters the widget words, and no internal ids', async () => {
    const rewardId = await create('rewards', { name: 'Sticker', type: 'CUSTOM', pointsCost: 5 });
    const gameId = await create('games', { name: 'Wheel', type: 'SPIN_WHEEL', pointsCost: 0, prizes: [{ name: 'Ten', value: 10, weight: 1 }] });
    const w = await shopper('historian', 20);
    expect((await w.post('/rewards', { rewardId })).status).toBe(200);
    expect((await w.post(`/games/${gameId}/play`)).status).toBe(200);
    expect((await server.api.post('/api/v1/referrals/apply', { externalId: 'historian-friend', referralCode: (await w.get('/referral')).body.referralCode })).status).toBe(200);
    const entries = (await w.get('/history')).body.transactions.map((t: { entry: unknown; description: string }) => [t.entry, t.description]);
    expect(entries).toEqual([
      [{ kind: 'referral_converted', params: {} }, 'Referral converted: historian-friend'],
      [{ kind: 'game_won', params: { prize: 'Ten', game: 'Wheel' } }, 'Won Ten in Wheel'],
      [{ kind: 'reward_claimed', params: { reward: 'Sticker' } }, 'Reward claimed: Sticker'],
      [{ kind: 'points_earned', params: {} }, null],
    ].map(([entry, description]) => [entry, description]));
  });
});

describe('GET /api/widget/guest', () => {
  it('answers the programme from the publishable key alone, with no member data, only to allowed origins', async () => {
    expect((await server.api.patch('/api/v1/project', {
      welcomeBonus: 25,
      widget: { signUpUrl: 'https://shop.example/register', signInUrl: 'https://shop.example/login', allowedOrigins: ['https://shop.example'] },
    })).status).toBe(200);
    await create('levels', { level: 1, name: 'Silver', minTotalPointsEarned: 100 });
    await create('levels', { level: 2, name: 'Gold', minTotalPointsEarned: 500 });
    const anon = client(server.url);
    const res = await anon.get(`/api/widget/guest?publicKey=${server.publishableKey}`, { headers: { origin: 'https://shop.example' } });
    expect(res.status, res.text).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect(res.body).toMatchObject({
      signUpUrl: 'https://shop.example/register', signInUrl: 'https://shop.example/login', welcomeBonus: 25,
      levels: [{ level: 1, name: 'Silver', minTotalPointsEarned: 100 }, { level: 2, name: 'Gold', minTotalPointsEarned: 500 }],
      waysToEarn: { checkin: { points: 5 }, share: { pointsPerShare: 10, maxSharesPerDay: 3 }, referral: { referrerReward: 100, refereeReward: 50 } },
    });
    expect(res.body.rewards.map((r: { name: string }) => r.name)).toContain('Sticker');
    expect(res.body.waysToEarn.quests.map((q: { name: string }) => q.name)).toContain('Say hi');
    expect(res.body.project.widgetSettings.allowedOrigins).toBeUndefined();
    expect(res.text).not.toMatch(/historian|keeper|mem_/);

    const other = await anon.get(`/api/widget/guest?publicKey=${server.publishableKey}`, { headers: { origin: 'https://evil.example' } });
    expect(other.status).toBe(403);
    expect(other.body.error).toBe('origin_not_allowed');
    for (const query of ['', '?publicKey=', `?publicKey=${server.secretKey}`, '?publicKey=pk_live_nothing', `?publicKey=${server.publishableKey}&x=1`]) {
      const bad = await anon.get(`/api/widget/guest${query}`, { headers: { origin: 'https://shop.example' } });
      expect([400, 401], query).toContain(bad.status);
      expect(bad.text).not.toMatch(/sk_live/);
    }
    expect((await anon.post(`/api/widget/guest?publicKey=${server.publishableKey}`, {})).status).toBe(405);
    expect((await server.api.patch('/api/v1/project', { widget: { allowedOrigins: [] } })).status).toBe(200);
  });
});
