import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, tableCounts, TestClock, type TestServer } from './helpers/server.ts';
import { widgetClient, type WidgetSigner, shopperHelpers } from './helpers/widget.ts';

// The widget's rewards, games, check-in, promo codes, referrals, social share and leaderboard,
// through HTTP with a signed X-Widget-Auth, against the real SQLite file.

let server: TestServer;
let signer: WidgetSigner;
const MINUTE = 60_000;
const PRIZES = [{ name: 'Nothing', value: 0, weight: 1 }, { name: 'Twenty', value: 20, weight: 3 }];

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-06-01T10:00:00Z')) });
  signer = { publicKey: server.publishableKey, widgetSecret: server.widgetSecret };
  expect((await server.api.patch('/api/v1/project', { referral: { referralUrl: 'https://shop.example/join' } })).status).toBe(200);
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

/** A member's widget, after init, holding `points`. */
const { shopper, create } = shopperHelpers(() => server, () => signer);
const balance = async (externalId: string) => (await server.api.get(`/api/v1/members/${externalId}`)).body.points as number;
const setFeatures = async (features: Record<string, boolean>) =>
  expect((await server.api.patch('/api/v1/project', { widget: { features } })).status).toBe(200);

describe('GET and POST /api/widget/rewards', () => {
  it('lists the rewards as the member sees them and claims one, showing the coupon code and the new balance', async () => {
    const couponId = await create('rewards', { name: '10% off', type: 'COUPON', pointsCost: 100, discountConfig: { type: 'PERCENTAGE', value: 10 } });
    const dearId = await create('rewards', { name: 'Tote bag', type: 'PHYSICAL', pointsCost: 500, stock: 3 });
    const w = await shopper('claire', 150);

    const list = await w.get('/rewards');
    expect(list.status, list.text).toBe(200);
    const byId = Object.fromEntries(list.body.rewards.map((r: { id: string }) => [r.id, r]));
    expect(byId[couponId]).toEqual({
      id: couponId, name: '10% off', description: null, imageUrl: null, type: 'COUPON', pointsCost: 100, stockRemaining: null, userClaims: 0,
      maxClaimsPerUser: null, minLevel: 0, levelRequired: false, canClaim: true, affordableIn: 0,
    });
    expect(byId[dearId]).toMatchObject({ canClaim: false, affordableIn: 350, stockRemaining: 3 });

    const claimed = await w.post('/rewards', { rewardId: couponId });
    expect(claimed.status, claimed.text).toBe(200);
    expect(claimed.body).toEqual({
      success: true,
      claim: expect.objectContaining({ id: expect.stringMatching(/^clm_/), pointsSpent: 100, couponCode: expect.stringMatching(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/) }),
      member: { points: 50 },
    });
    expect(claimed.body.claim.reward).toMatchObject({ id: couponId, type: 'COUPON' });
    expect(await balance('claire')).toBe(50);
    expect((await w.get('/rewards')).body.rewards.find((r: { id: string }) => r.id === couponId)).toMatchObject({ userClaims: 1, canClaim: false, affordableIn: 50 });

    const counts = tableCounts(server);
    const short = await w.post('/rewards', { rewardId: couponId });
    expect(short.status).toBe(400);
    expect(short.body).toEqual({ error: 'Insufficient points', message: expect.stringMatching(/costs 100 points; the member has 50/) });
    expect((await w.post('/rewards', { rewardId: 'rwd_nope' })).status).toBe(404);
    expect(tableCounts(server)).toEqual(counts);
  });

  it('never oversells: 30 members claiming a reward with stock 5 at once get exactly 5 claims', async () => {
    const id = await create('rewards', { name: 'Limited mug', type: 'CUSTOM', pointsCost: 30, stock: 5 });
    const names = Array.from({ length: 30 }, (_, i) => `racer-${i}`);
    const widgets = await Promise.all(names.map((name) => shopper(name, 40)));
    const results = await Promise.all(widgets.map((w) => w.post('/rewards', { rewardId: id })));
    const won = names.filter((_, i) => results[i]!.status === 200);
    expect(won).toHaveLength(5);
    expect(results.filter((r) => r.status === 409).every((r) => /out of stock/.test(r.body.message))).toBe(true);
    expect(results.filter((r) => r.status === 409)).toHaveLength(25);
    for (const name of names) expect(await balance(name), name).toBe(won.includes(name) ? 10 : 40);
    expect(server.ctx.db.prepare('SELECT count(*) FROM reward_claims WHERE reward_id = ?').pluck().get(id)).toBe(5);
    expect((await server.api.get(`/api/v1/rewards/${id}`)).body.stock).toBe(0);
  });
});

describe('GET /api/widget/games, POST /games/{id}/play, GET and POST /games/{id}/checkin', () => {
  let wheelId: string;
  let checkinId: string;

  beforeAll(async () => {
    wheelId = await create('games', { name: 'Wheel', type: 'SPIN_WHEEL', pointsCost: 5, cooldownMinutes: 10, prizes: PRIZES });
    checkinId = await create('games', { name: 'Daily', type: 'DAILY_CHECKIN', checkinPoints: 5, streakBonuses: [{ day: 2, bonus: 15 }] });
    const off = await create('games', { name: 'Switched off', type: 'DICE', prizes: PRIZES });
    expect((await server.api.patch(`/api/v1/games/${off}`, { isActive: false })).status).toBe(200);
  });

  it('lists the live games, each kind only while its feature is on', async () => {
    const w = await shopper('gamer');
    const all = await w.get('/games');
    expect(all.status, all.text).toBe(200);
    expect(all.body.games.map((g: { name: string }) => g.name)).toEqual(['Wheel', 'Daily']);
    expect(all.body.games[0]).toEqual({
      id: wheelId, name: 'Wheel', description: null, imageUrl: null, type: 'SPIN_WHEEL', pointsCost: 5, maxPlaysPerUser: null, dailyPlaysLimit: null,
      cooldownMinutes: 10, prizes: [{ ...PRIZES[0], odds: 0.25 }, { ...PRIZES[1], odds: 0.75 }], checkinPoints: 0, streakBonuses: [], showOdds: true, multiplier: 1,
      availability: { reason: null, availableAt: null },
    });
    await setFeatures({ checkin: false });
    expect((await w.get('/games')).body.games.map((g: { name: string }) => g.name)).toEqual(['Wheel']);
    await setFeatures({ checkin: true, games: false });
    expect((await w.get('/games')).body.games.map((g: { name: string }) => g.name)).toEqual(['Daily']);
    await setFeatures({ checkin: false });
    expect((await w.get('/games')).status).toBe(403);
    await setFeatures({ checkin: true, games: true });
  });

  it('plays a game: spends the cost, pays the prize, then 429 with Retry-After during the cooldown', async () => {
    const w = await shopper('player', 50);
    const played = await w.post(`/games/${wheelId}/play`);
    expect(played.status, played.text).toBe(200);
    const { result, member } = played.body;
    expect(played.body.success).toBe(true);
    expect(PRIZES.map((p) => p.name)).toContain(result.prize.name);
    expect(result).toMatchObject({ pointsAwarded: result.prize.value, basePoints: result.prize.value, multiplier: 1, multiplierEventName: null, pointsSpent: 5 });
    expect(result.animation).toEqual({ type: 'SPIN_WHEEL', segmentIndex: result.prizeIndex, segments: 2 });
    expect(member.points).toBe(45 + result.prize.value);
    expect(await balance('player')).toBe(member.points);

    const counts = tableCounts(server);
    const again = await w.post(`/games/${wheelId}/play`, {});
    expect(again.status).toBe(429);
    expect(again.headers['retry-after']).toBe('600');
    // The game list says why Play is closed and when it opens, agreeing with the 429.
    const listed = (await w.get('/games')).body.games.find((g: { id: string }) => g.id === wheelId);
    expect(listed.availability).toEqual({ reason: 'cooldown', availableAt: new Date(server.clock.now().getTime() + 10 * MINUTE).toISOString() });
    expect((await w.post(`/games/${checkinId}/play`)).status).toBe(400);
    expect(tableCounts(server)).toEqual(counts);
    server.clock.advance(10 * MINUTE);
    expect((await w.post(`/games/${wheelId}/play`)).status).toBe(200);
  });

  it('checks in once a day: the streak grows, the bonus day pays it, a second check-in is 429 until midnight', async () => {
    const w = await shopper('early-bird');
    const status = await w.get(`/games/${checkinId}/checkin`);
    expect(status.status, status.text).toBe(200);
    expect(status.body).toEqual({
      canCheckin: true, currentStreak: 0, longestStreak: 0, lastCheckinAt: null, todayReward: 5, streakBonus: null,
      nextStreakBonus: { day: 2, bonus: 15, daysAway: 1 }, multiplier: 1, availability: { reason: null, availableAt: null },
    });
    const first = await w.post(`/games/${checkinId}/checkin`);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ success: true, pointsAwarded: 5, streakBonus: null, newStreak: 1, member: { points: 5, currentStreak: 1 } });
    const twice = await w.post(`/games/${checkinId}/checkin`);
    expect(twice.status).toBe(429);
    expect(Number(twice.headers['retry-after'])).toBe(Math.ceil((Date.parse('2026-06-02T00:00:00Z') - server.clock.now().getTime()) / 1000));
    expect((await w.get(`/games/${checkinId}/checkin`)).body).toMatchObject({
      canCheckin: false, currentStreak: 1, availability: { reason: 'daily', availableAt: '2026-06-02T00:00:00.000Z' },
    });

    server.clock.advance(24 * 60 * MINUTE);
    const second = await w.post(`/games/${checkinId}/checkin`);
    expect(second.body).toMatchObject({ pointsAwarded: 20, streakBonus: 15, newStreak: 2, member: { points: 25, currentStreak: 2 } });
    expect((await w.get('/profile')).body).toMatchObject({ currentStreak: 2, longestStreak: 2, points: 25 });
    expect((await w.post(`/games/${wheelId}/checkin`)).status).toBe(400);
  });
});

describe('POST /api/widget/promo-code', () => {
  it('answers {success, pointsAwarded, message} once per member; unknown codes 404; GET is 405', async () => {
    await create('promo-codes', { code: 'SUMMER', rewardType: 'POINTS', points: 40 });
    const w = await shopper('promo-fan');
    const redeemed = await w.post('/promo-code', { code: 'summer' });
    expect(redeemed.status, redeemed.text).toBe(200);
    expect(redeemed.body).toEqual({ success: true, pointsAwarded: 40, basePoints: 40, multiplier: 1, message: 'Promo code applied: 40 points added.', claim: null, member: { points: 40 } });
    const counts = tableCounts(server);
    const again = await w.post('/promo-code', { code: 'SUMMER' });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/already redeemed/);
    expect((await w.post('/promo-code', { code: 'WINTER' })).status).toBe(404);
    expect((await w.get('/promo-code')).status).toBe(405);
    expect(tableCounts(server)).toEqual(counts);
  });

  it('a REWARD code hands over the claim, with its coupon code', async () => {
    const rewardId = await create('rewards', { name: 'Free shipping', type: 'COUPON', pointsCost: 999, discountConfig: { type: 'FIXED_CART', value: 5 } });
    await create('promo-codes', { code: 'SHIPFREE', rewardType: 'REWARD', rewardId });
    const w = await shopper('shipper');
    const res = await w.post('/promo-code', { code: 'SHIPFREE' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ success: true, pointsAwarded: 0, member: { points: 0 }, claim: { pointsSpent: 0, reward: { id: rewardId } } });
    expect(res.body.claim.couponCode).toMatch(/^[A-Z0-9]{4}-/);
  });
});

describe('GET /api/widget/referral and POST /referral/code', () => {
  it("shows the member's code, link, results and rewards, and regenerates the code", async () => {
    const w = await shopper('referrer');
    const first = await w.get('/referral');
    expect(first.status, first.text).toBe(200);
    const code = first.body.referralCode as string;
    expect(first.body).toEqual({
      referralCode: expect.stringMatching(/^[A-Z0-9]{8}$/), shareLink: `https://shop.example/join?ref=${code}`,
      stats: { totalReferrals: 0, pendingReferrals: 0, convertedReferrals: 0, totalPointsEarned: 0 },
      rewards: { referrerReward: 100, refereeReward: 50 },
    });
    expect((await server.api.post('/api/v1/referrals/apply', { externalId: 'referee', referralCode: code })).status).toBe(200);
    expect((await w.get('/referral')).body.stats).toEqual({ totalReferrals: 1, pendingReferrals: 0, convertedReferrals: 1, totalPointsEarned: 100 });

    const fresh = await w.post('/referral/code');
    expect(fresh.status, fresh.text).toBe(200);
    expect(fresh.body.referralCode).not.toBe(code);
    expect(fresh.body).toEqual({ referralCode: expect.stringMatching(/^[A-Z0-9]{8}$/), shareLink: `https://shop.example/join?ref=${fresh.body.referralCode}` });
    expect((await w.get('/referral')).body.referralCode).toBe(fresh.body.referralCode);
    expect((await server.api.post('/api/v1/referrals/apply', { externalId: 'late', referralCode: code })).status).toBe(404);
  });
});

describe('GET and POST /api/widget/social-share', () => {
  it('pays a share, then 429 with Retry-After during the cooldown and over the daily limit', async () => {
    const w = await shopper('sharer');
    const status = await w.get('/social-share');
    expect(status.status, status.text).toBe(200);
    expect(status.body).toEqual({
      platforms: ['facebook', 'x', 'linkedin', 'whatsapp', 'email'], pointsPerShare: 10, maxSharesPerDay: 3, cooldownMinutes: 60, todayShares: 0,
      canShare: true, cooldownEndsAt: null, multiplier: 1, availability: { reason: null, availableAt: null },
    });
    const shared = await w.post('/social-share', { platform: 'twitter', shareType: 'referral' });
    expect(shared.status, shared.text).toBe(200);
    const endsAt = new Date(server.clock.now().getTime() + 60 * MINUTE).toISOString();
    expect(shared.body).toEqual({ success: true, pointsAwarded: 10, basePoints: 10, multiplier: 1, cooldownEndsAt: endsAt, todayShares: 1, member: { points: 10 } });
    expect(server.ctx.db.prepare("SELECT platform, share_type FROM social_shares ORDER BY id DESC LIMIT 1").get()).toEqual({ platform: 'x', share_type: 'referral' });

    const cooling = await w.post('/social-share', { platform: 'facebook' });
    expect(cooling.status).toBe(429);
    expect(cooling.headers['retry-after']).toBe('3600');
    expect((await w.get('/social-share')).body).toMatchObject({ canShare: false, todayShares: 1, cooldownEndsAt: endsAt,
      availability: { reason: 'cooldown', availableAt: endsAt } });
    for (let i = 0; i < 2; i++) {
      server.clock.advance(60 * MINUTE);
      expect((await w.post('/social-share', { platform: 'email' })).status).toBe(200);
    }
    server.clock.advance(60 * MINUTE);
    const capped = await w.post('/social-share', { platform: 'email' });
    expect(capped.status).toBe(429);
    expect(capped.body.message).toMatch(/daily limit/);
    expect((await w.get('/social-share')).body).toMatchObject({ canShare: false, todayShares: 3, maxSharesPerDay: 3,
      availability: { reason: 'daily', availableAt: new Date(server.clock.now().getTime() + Number(capped.headers['retry-after']) * 1000).toISOString() } });
    expect(Number(capped.headers['retry-after'])).toBeGreaterThan(0);
    expect(await balance('sharer')).toBe(30);
  });
});

describe('GET /api/widget/leaderboard', () => {
  it('shows the top with short names and no externalIds, marks the member, and gives their own rank', async () => {
    const project = server.addProject('Board shop');
    const boardSigner = { publicKey: project.publishableKey, widgetSecret: project.widgetSecret };
    const widget = (externalId: string) => widgetClient(server.url, boardSigner, externalId, server.clock.now);
    for (const [externalId, name, points] of [['ada', 'Ada  Lovelace', 300], ['bob', 'bob', 200], ['cy', null, 100], ['me', 'Me Myself Andi', 50]] as const) {
      expect((await project.api.post('/api/v1/members', { externalId, ...(name ? { name } : {}) })).status).toBe(201);
      expect((await project.api.post(`/api/v1/members/${externalId}/points`, { amount: points })).status).toBe(200);
    }
    const me = widget('me');
    expect((await me.get('/leaderboard')).status).toBe(403);
    expect((await project.api.patch('/api/v1/project', { widget: { features: { leaderboard: true } } })).status).toBe(200);

    const board = await me.get('/leaderboard?limit=3');
    expect(board.status, board.text).toBe(200);
    expect(board.body).toEqual({
      period: 'all',
      entries: [
        { rank: 1, name: 'Ada L.', points: 300, isMember: false },
        { rank: 2, name: 'bob', points: 200, isMember: false },
        { rank: 3, name: null, points: 100, isMember: false },
      ],
      member: { rank: 4, points: 50 },
    });
    const mine = await me.get('/leaderboard?period=month');
    expect(mine.body.entries[3]).toEqual({ rank: 4, name: 'Me A.', points: 50, isMember: true });
    expect((await widget('nobody-yet').get('/leaderboard')).status).toBe(404);
    for (const query of ['period=year', 'limit=0', 'limit=101', 'top=3']) {
      const res = await me.get(`/leaderboard?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.message, query).toMatch(/"(period|limit)"|Unknown query parameter "top"/);
    }
  });
});

describe('the widget gamification routes together', () => {
  const routes = (ids: { reward: string; game: string; checkin: string }): [string, string, unknown, string][] => [
    ['GET', '/rewards', undefined, 'rewards'],
    ['POST', '/rewards', { rewardId: ids.reward }, 'rewards'],
    ['POST', `/games/${ids.game}/play`, undefined, 'games'],
    ['GET', `/games/${ids.checkin}/checkin`, undefined, 'checkin'],
    ['POST', `/games/${ids.checkin}/checkin`, undefined, 'checkin'],
    ['POST', '/promo-code', { code: 'ANY' }, 'promo'],
    ['GET', '/referral', undefined, 'referrals'],
    ['POST', '/referral/code', undefined, 'referrals'],
    ['GET', '/social-share', undefined, 'share'],
    ['POST', '/social-share', { platform: 'x' }, 'share'],
    ['GET', '/leaderboard', undefined, 'leaderboard'],
  ];
  const send = (w: Awaited<ReturnType<typeof shopper>>, method: string, path: string, body: unknown) =>
    (method === 'GET' ? w.get(path) : w.post(path, body));

  let ids: { reward: string; game: string; checkin: string };
  beforeAll(async () => {
    ids = {
      reward: await create('rewards', { name: 'Sticker', type: 'CUSTOM', pointsCost: 1 }),
      game: await create('games', { name: 'Dice', type: 'DICE', prizes: PRIZES }),
      checkin: await create('games', { name: 'Daily too', type: 'DAILY_CHECKIN', checkinPoints: 1 }),
    };
  });

  it('answer 403 and change nothing when their feature is off', async () => {
    const w = await shopper('switched-off', 100);
    await setFeatures({ rewards: false, games: false, checkin: false, promo: false, referrals: false, share: false, leaderboard: false });
    const counts = tableCounts(server);
    try {
      for (const [method, path, body, feature] of routes(ids)) {
        const res = await send(w, method, path, body);
        expect(res.status, `${method} ${path}`).toBe(403);
        expect(res.body.message).toContain(`"${feature}" feature is turned off`);
      }
      expect((await w.get('/games')).status).toBe(403);
    } finally {
      await setFeatures({ rewards: true, games: true, checkin: true, promo: true, referrals: true, share: true });
    }
    expect(tableCounts(server)).toEqual(counts);
  });

  it("answer 404 for another project's rewards and games, changing nothing", async () => {
    const other = server.addProject('Other shop');
    const w = widgetClient(server.url, { publicKey: other.publishableKey, widgetSecret: other.widgetSecret }, 'claire', server.clock.now);
    expect((await w.post('/init')).status).toBe(200);
    expect((await other.api.post('/api/v1/members/claire/points', { amount: 500 })).status).toBe(200);
    const counts = tableCounts(server);
    for (const [method, path, body] of [
      ['POST', '/rewards', { rewardId: ids.reward }],
      ['POST', `/games/${ids.game}/play`, undefined],
      ['GET', `/games/${ids.checkin}/checkin`, undefined],
      ['POST', `/games/${ids.checkin}/checkin`, undefined],
      ['POST', '/promo-code', { code: 'SUMMER' }],
    ] as const) {
      const res = await send(w, method, path, body);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
    expect((await w.get('/rewards')).body).toEqual({ rewards: [] });
    expect((await w.get('/games')).body).toEqual({ games: [] });
    expect(tableCounts(server)).toEqual(counts);
    // This project's own claire is untouched.
    expect(await balance('claire')).toBe(50);
  });

  it('refuse bad bodies with 400 naming the field, writing nothing; the member is always the signed one', async () => {
    const w = await shopper('validator', 100);
    const counts = tableCounts(server);
    const cases: [string, unknown, RegExp][] = [
      ['/rewards', {}, /"rewardId" is required/],
      ['/rewards', { rewardId: 5 }, /"rewardId" must be a string/],
      ['/rewards', { rewardId: '' }, /"rewardId" must not be empty/],
      ['/rewards', { rewardId: ids.reward, externalId: 'claire' }, /Unknown field "externalId"/],
      [`/games/${ids.game}/play`, { externalId: 'claire' }, /Unknown field "externalId"/],
      [`/games/${ids.checkin}/checkin`, { streak: 9 }, /Unknown field "streak"/],
      ['/promo-code', {}, /"code" is required/],
      ['/promo-code', { code: 'x'.repeat(65) }, /"code" must be at most 64 characters/],
      ['/promo-code', { code: 'SUMMER', externalId: 'claire' }, /Unknown field "externalId"/],
      ['/referral/code', { referralCode: 'MINE1234' }, /Unknown field "referralCode"/],
      ['/social-share', {}, /"platform" is required/],
      ['/social-share', { platform: 'myspace' }, /"platform" must be one of/],
      ['/social-share', { platform: 'x', shareType: 'Big Page' }, /"shareType" must be lowercase letters/],
    ];
    for (const [path, body, message] of cases) {
      const res = await w.post(path, body);
      expect(res.status, `${path} ${JSON.stringify(body)}`).toBe(400);
      expect(res.body.message, path).toMatch(message);
    }
    const notJson = await w.post('/rewards', undefined, { 'content-type': 'text/plain' });
    expect(notJson.status).toBe(400);
    expect(tableCounts(server)).toEqual(counts);
    expect(await balance('validator')).toBe(100);
  });
});
