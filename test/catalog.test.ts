import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, TestClock, tableCounts, type TestServer } from './helpers/server.ts';

let server: TestServer;
const clock = new TestClock(new Date('2026-03-01T12:00:00.000Z'));
beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

const HOUR = 3_600_000;
const iso = (offsetMs: number) => new Date(clock.current.getTime() + offsetMs).toISOString();

/** Per catalog: a valid body, a change, and a body of the same kind that does not apply now. */
const KINDS: { path: string; listKey: string; body: () => Record<string, unknown>; change: Record<string, unknown>; inactive: () => Record<string, unknown> }[] = [
  {
    path: 'quests', listKey: 'quests',
    body: () => ({ name: 'Write a review', completionMode: 'MANUAL', points: 20 }),
    change: { points: 25, description: 'Tell others' },
    inactive: () => ({ name: 'Later', completionMode: 'MANUAL', startsAt: iso(HOUR) }),
  },
  {
    path: 'rewards', listKey: 'rewards',
    body: () => ({ name: '10% off', type: 'COUPON', pointsCost: 500, discountConfig: { type: 'PERCENTAGE', value: 10 }, stock: 100 }),
    change: { stock: null, maxClaimsPerUser: 2 },
    inactive: () => ({ name: 'Gone', type: 'PHYSICAL', pointsCost: 1, isActive: false }),
  },
  {
    path: 'badges', listKey: 'badges',
    body: () => ({ name: 'Big spender', rarity: 'EPIC', criteria: { type: 'totalPointsEarned', threshold: 1000 } }),
    change: { rarity: 'LEGENDARY', imageUrl: 'https://cdn.example/b.png' },
    inactive: () => ({ name: 'Unused' }),
  },
  {
    path: 'games', listKey: 'games',
    body: () => ({ name: 'Wheel', type: 'SPIN_WHEEL', pointsCost: 10, prizes: [{ name: '5 points', value: 5, weight: 3 }, { name: 'Nothing', value: 0, weight: 1 }] }),
    change: { cooldownMinutes: 30, dailyPlaysLimit: 3 },
    inactive: () => ({ name: 'Check-in', type: 'DAILY_CHECKIN', checkinPoints: 5, streakBonuses: [{ day: 7, bonus: 50 }], isActive: false }),
  },
  {
    path: 'promo-codes', listKey: 'promoCodes',
    body: () => ({ code: 'WELCOME10', rewardType: 'POINTS', points: 10, maxRedemptions: 100 }),
    change: { maxRedemptions: 200 },
    inactive: () => ({ code: 'EXPIRED', rewardType: 'POINTS', points: 5, startsAt: iso(-2 * HOUR), expiresAt: iso(-HOUR) }),
  },
  {
    path: 'multipliers', listKey: 'multipliers',
    body: () => ({ name: 'Weekend', multiplier: 2, startsAt: iso(-HOUR), endsAt: iso(48 * HOUR), sources: ['quest', 'game'] }),
    change: { multiplier: 3 },
    inactive: () => ({ name: 'Next week', multiplier: 1.5, startsAt: iso(7 * 24 * HOUR), endsAt: iso(8 * 24 * HOUR) }),
  },
  {
    path: 'levels', listKey: 'levels',
    body: () => ({ level: 1, name: 'Bronze', minTotalPointsEarned: 100 }),
    change: { name: 'Bronze+' },
    inactive: () => ({ level: 2, name: 'Silver', minTotalPointsEarned: 500 }),
  },
];

describe('catalog: the same five routes for all seven kinds', () => {
  for (const kind of KINDS) {
    it(`${kind.path}: create 201, read, list, filter by active, update, archive`, async () => {
      const api = server.api;
      const base = `/api/v1/${kind.path}`;
      const created = await api.post(base, { ...kind.body(), key: `${kind.path}-main` });
      expect(created.status, created.text).toBe(201);
      expect(created.body).toMatchObject({ ...JSON.parse(JSON.stringify(kind.body())), key: `${kind.path}-main`, archivedAt: null });
      const id = created.body.id as string;
      expect((await api.get(`${base}/${id}`)).body).toEqual(created.body);

      const other = await api.post(base, kind.inactive());
      expect(other.status, other.text).toBe(201);
      const listed = await api.get(base);
      expect(listed.status).toBe(200);
      expect(listed.body[kind.listKey].map((item: { id: string }) => item.id)).toEqual([id, other.body.id]);
      expect(listed.body.pagination).toEqual({ total: 2, limit: 50, offset: 0, hasMore: false });
      if (kind.path !== 'badges' && kind.path !== 'levels') {
        expect((await api.get(`${base}?active=true`)).body[kind.listKey].map((item: { id: string }) => item.id)).toEqual([id]);
        expect((await api.get(`${base}?active=false`)).body[kind.listKey].map((item: { id: string }) => item.id)).toEqual([other.body.id]);
      }
      expect((await api.get(`${base}?limit=1&offset=1`)).body.pagination).toEqual({ total: 2, limit: 1, offset: 1, hasMore: false });

      clock.advance(1000);
      const updated = await api.patch(`${base}/${id}`, kind.change);
      expect(updated.status, updated.text).toBe(200);
      expect(updated.body).toMatchObject(kind.change);
      expect(updated.body.updatedAt).not.toBe(created.body.updatedAt);

      const archived = await api.delete(`${base}/${id}`);
      expect(archived.status).toBe(200);
      expect(archived.body.archivedAt).toBe(clock.current.toISOString());
      expect((await api.delete(`${base}/${id}`)).body.archivedAt).toBe(archived.body.archivedAt);
      expect((await api.get(`${base}/${id}`)).body.archivedAt).toBe(archived.body.archivedAt);
      expect((await api.get(base)).body[kind.listKey].map((item: { id: string }) => item.id)).toEqual([other.body.id]);
      expect((await api.get(`${base}?includeArchived=true`)).body.pagination.total).toBe(2);
      const frozen = await api.patch(`${base}/${id}`, kind.change);
      expect(frozen.status).toBe(409);
      // The key is free again once its item is archived.
      expect((await api.post(base, { ...kind.inactive(), ...(kind.path === 'levels' ? { level: 1, minTotalPointsEarned: 100 } : {}),
        ...(kind.path === 'promo-codes' ? { code: 'OTHER' } : {}), key: `${kind.path}-main` })).status).toBe(201);

      const missing = await api.get(`${base}/nope_123`);
      expect(missing.status).toBe(404);
      expect(missing.body.error).toBe('Not Found');
    });
  }

  it('keeps keys, promo codes (ignoring case) and level numbers unique among live items: 409', async () => {
    const api = server.api;
    expect((await api.post('/api/v1/badges', { name: 'A', key: 'dup' })).status).toBe(201);
    const dupKey = await api.post('/api/v1/badges', { name: 'B', key: 'dup' });
    expect(dupKey.status).toBe(409);
    expect(dupKey.body.message).toMatch(/key "dup"/);
    expect((await api.post('/api/v1/promo-codes', { code: 'Summer', rewardType: 'POINTS', points: 5 })).status).toBe(201);
    const dupCode = await api.post('/api/v1/promo-codes', { code: 'SUMMER', rewardType: 'POINTS', points: 5 });
    expect(dupCode.status).toBe(409);
    expect(dupCode.body.message).toMatch(/code "SUMMER"/);
    const dupLevel = await api.post('/api/v1/levels', { level: 2, name: 'Again', minTotalPointsEarned: 600 });
    expect(dupLevel.status).toBe(409);
  });

  it('replays a create sent twice with the same Idempotency-Key instead of creating two items', async () => {
    const headers = { 'idempotency-key': 'create-badge-once' };
    const first = await server.api.post('/api/v1/badges', { name: 'Once' }, { headers });
    const again = await server.api.post('/api/v1/badges', { name: 'Once' }, { headers });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    expect(server.ctx.db.prepare("SELECT count(*) AS n FROM badges WHERE name = 'Once'").get()).toEqual({ n: 1 });
  });

  it('keeps levels ordered: a higher level cannot need fewer lifetime points (400)', async () => {
    const res = await server.api.post('/api/v1/levels', { level: 3, name: 'Gold', minTotalPointsEarned: 50 });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/"minTotalPointsEarned" 50 is out of order/);
  });

  it('refuses a reference to an unknown or archived item with 404 naming the field', async () => {
    const res = await server.api.post('/api/v1/quests', { name: 'Q', completionMode: 'MANUAL', badgeId: 'bdg_missing' });
    expect(res.status).toBe(404);
    expect(res.body.message).toMatch(/"badgeId"/);
    const promo = await server.api.post('/api/v1/promo-codes', { code: 'GIFT', rewardType: 'REWARD', rewardId: 'rwd_missing' });
    expect(promo.status).toBe(404);
    expect(promo.body.message).toMatch(/"rewardId"/);
  });

  it('checks the whole item on update, so a window cannot be inverted one end at a time', async () => {
    const created = await server.api.post('/api/v1/quests', { name: 'Window', completionMode: 'MANUAL', startsAt: iso(HOUR), endsAt: iso(2 * HOUR) });
    const res = await server.api.patch(`/api/v1/quests/${created.body.id}`, { startsAt: iso(3 * HOUR) });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('"startsAt" must be before "endsAt".');
    const cleared = await server.api.patch(`/api/v1/quests/${created.body.id}`, { endsAt: null, startsAt: iso(3 * HOUR) });
    expect(cleared.status).toBe(200);
    expect(cleared.body.endsAt).toBeNull();
  });
});

describe('catalog: bad input answers 400 naming the field and writes nothing', () => {
  const cases: [string, string, string, unknown, RegExp][] = [
    ['POST', 'quests', '', { completionMode: 'MANUAL' }, /"name" is required/],
    ['POST', 'quests', '', { name: 'Q', completionMode: 'SOMETIMES' }, /"completionMode" must be one of MANUAL, AUTOMATED, SELF_REPORT/],
    ['POST', 'quests', '', { name: 'Q', completionMode: 'AUTOMATED' }, /"action" is required for an AUTOMATED quest/],
    ['POST', 'quests', '', { name: 'Q', completionMode: 'MANUAL', targetCount: 0 }, /"targetCount" must be at least 1/],
    ['POST', 'quests', '', { name: 'Q', completionMode: 'MANUAL', points: 1.5 }, /"points" must be a whole number/],
    ['POST', 'quests', '', { name: 'Q', completionMode: 'MANUAL', repeatable: 'yes' }, /"repeatable" must be true or false/],
    ['POST', 'quests', '', { name: 'Q', completionMode: 'MANUAL', startsAt: '2026-02-30T00:00:00Z' }, /"startsAt" is not a real calendar date/],
    ['POST', 'quests', '', { name: 'Q', completionMode: 'MANUAL', startsAt: '2026-04-01T00:00:00Z', endsAt: '2026-03-01T00:00:00Z' }, /"startsAt" must be before "endsAt"/],
    ['POST', 'quests', '', { name: 'Q', completionMode: 'MANUAL', colour: 'red' }, /Unknown field "colour"/],
    ['POST', 'quests', '', { name: 'Q', completionMode: 'MANUAL', key: 'has space' }, /"key" must be 1 to 100 letters/],
    ['POST', 'rewards', '', { name: 'R', type: 'COUPON' }, /"pointsCost" is required/],
    ['POST', 'rewards', '', { name: 'R', type: 'VOUCHER', pointsCost: 1 }, /"type" must be one of COUPON/],
    ['POST', 'rewards', '', { name: 'R', type: 'COUPON', pointsCost: -1 }, /"pointsCost" must be at least 0/],
    ['POST', 'rewards', '', { name: 'R', type: 'COUPON', pointsCost: 1, discountConfig: { type: 'PERCENTAGE', value: 150 } }, /"discountConfig.value" must be at most 100/],
    ['POST', 'rewards', '', { name: 'R', type: 'COUPON', pointsCost: 1, discountConfig: { type: 'BOGO', value: 1 } }, /"discountConfig.type" must be one of/],
    ['POST', 'rewards', '', { name: 'R', type: 'COUPON', pointsCost: 1, imageUrl: 'javascript:x' }, /"imageUrl" must be an http or https URL/],
    ['POST', 'badges', '', { name: 'B', rarity: 'MYTHIC' }, /"rarity" must be one of COMMON, UNCOMMON, RARE, EPIC, LEGENDARY/],
    ['POST', 'badges', '', { name: 'B', criteria: { type: 'logins', threshold: 3 } }, /"criteria.type" must be one of/],
    ['POST', 'badges', '', { name: 'B', criteria: { type: 'currentStreak', threshold: 0 } }, /"criteria.threshold" must be at least 1/],
    ['POST', 'games', '', { name: 'G', type: 'DICE' }, /"prizes" must hold at least one prize/],
    ['POST', 'games', '', { name: 'G', type: 'DICE', prizes: [{ name: 'p', value: 1, weight: -1 }] }, /"prizes.0.weight" must be at least 0/],
    ['POST', 'games', '', { name: 'G', type: 'DICE', prizes: [{ name: 'p', value: -5, weight: 1 }] }, /"prizes.0.value" must be at least 0/],
    ['POST', 'games', '', { name: 'G', type: 'DICE', prizes: [{ name: 'p', value: 1, weight: 0 }] }, /at least one prize with a weight above 0/],
    ['POST', 'games', '', { name: 'G', type: 'DAILY_CHECKIN', streakBonuses: [{ day: 3, bonus: 1 }, { day: 3, bonus: 2 }] }, /each day at most once/],
    ['POST', 'promo-codes', '', { code: 'X1', rewardType: 'POINTS' }, /A POINTS promo code needs "points"/],
    ['POST', 'promo-codes', '', { code: 'bad code!', rewardType: 'POINTS', points: 1 }, /"code" must be 1 to 64 letters/],
    ['POST', 'promo-codes', '', { code: 'X2', rewardType: 'CASH', points: 1 }, /"rewardType" must be one of POINTS, REWARD/],
    ['POST', 'multipliers', '', { name: 'M', multiplier: 1, startsAt: '2026-03-01T00:00:00Z', endsAt: '2026-03-02T00:00:00Z' }, /"multiplier" must be greater than 1/],
    ['POST', 'multipliers', '', { name: 'M', multiplier: 2, startsAt: '2026-03-02T00:00:00Z', endsAt: '2026-03-01T00:00:00Z' }, /"startsAt" must be before "endsAt"/],
    ['POST', 'multipliers', '', { name: 'M', multiplier: 2, startsAt: '2026-03-01T00:00:00Z' }, /"endsAt" is required/],
    ['POST', 'multipliers', '', { name: 'M', multiplier: 2, startsAt: '2026-03-01T00:00:00Z', endsAt: '2026-03-02T00:00:00Z', sources: ['api'] }, /"sources.0" must be one of quest/],
    ['POST', 'levels', '', { level: -1, name: 'L', minTotalPointsEarned: 0 }, /"level" must be at least 0/],
    ['POST', 'levels', '', { level: 9, name: 'L' }, /"minTotalPointsEarned" is required/],
    ['PATCH', 'quests', '/qst_x', { completionMode: null }, /"completionMode" must be one of/],
    ['PATCH', 'levels', '/lvl_x', { name: '' }, /"name" must not be empty/],
    ['GET', 'quests', '?limit=0', undefined, /Query parameter "limit" must be at least 1/],
    ['GET', 'quests', '?active=maybe', undefined, /Query parameter "active" must be true or false/],
    ['GET', 'rewards', '?sort=name', undefined, /Unknown query parameter "sort"/],
    ['DELETE', 'badges', '/bdg_x', { force: true }, /Unknown field "force"/],
  ];

  it.each(cases)('%s /%s%s %j', async (method, path, suffix, body, message) => {
    const before = tableCounts(server);
    const res = await server.api.call(method, `/api/v1/${path}${suffix}`, body === undefined ? {} : { body });
    expect(res.status, res.text).toBe(400);
    expect(res.body.error).toBe('Bad Request');
    expect(res.body.message).toMatch(message);
    expect(tableCounts(server)).toEqual(before);
  });
});

describe('project settings', () => {
  it('reads the defaults, then merges a patch into them', async () => {
    const initial = await server.api.get('/api/v1/project');
    expect(initial.status).toBe(200);
    expect(initial.body).toMatchObject({
      id: server.projectId, name: 'Default', timezone: 'UTC', pointsExpiryDays: null, welcomeBonus: 0,
      referral: { referrerReward: 100, refereeReward: 50, conversion: 'SIGNUP', referralUrl: null, limits: { perMonth: null, total: null } },
      socialShare: { pointsPerShare: 10, maxSharesPerDay: 3, cooldownMinutes: 60 },
      widget: { defaultLanguage: 'en', displayMode: 'floating', position: 'right', allowedOrigins: [] },
    });
    expect(initial.body.widget.languages).toHaveLength(13);
    const patched = await server.api.patch('/api/v1/project', {
      name: 'Corner Shop', timezone: 'Europe/Paris', pointsExpiryDays: 365, welcomeBonus: 50,
      referral: { conversion: 'FIRST_ORDER', referralUrl: 'https://shop.example/join', limits: { perMonth: 5 } },
      widget: { features: { leaderboard: true }, theme: { primaryColor: '#112233' }, allowedOrigins: ['https://shop.example'] },
    });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({
      name: 'Corner Shop', timezone: 'Europe/Paris', pointsExpiryDays: 365, welcomeBonus: 50,
      referral: { referrerReward: 100, conversion: 'FIRST_ORDER', referralUrl: 'https://shop.example/join', limits: { perMonth: 5, total: null } },
      widget: { features: { leaderboard: true, points: true }, theme: { primaryColor: '#112233', backgroundColor: '#FFFFFF' }, allowedOrigins: ['https://shop.example'] },
    });
    expect((await server.api.get('/api/v1/project')).body).toEqual(patched.body);
    const off = await server.api.patch('/api/v1/project', { pointsExpiryDays: null });
    expect(off.body.pointsExpiryDays).toBeNull();
  });

  const bad: [unknown, RegExp][] = [
    [{ timezone: 'Mars/Olympus' }, /"timezone" must be an IANA time zone/],
    [{ name: '' }, /"name" must not be empty/],
    [{ pointsExpiryDays: 0 }, /"pointsExpiryDays" must be at least 1/],
    [{ welcomeBonus: -5 }, /"welcomeBonus" must be at least 0/],
    [{ referral: { conversion: 'FIRST_VISIT' } }, /"referral.conversion" must be one of SIGNUP, FIRST_ORDER/],
    [{ referral: { referralUrl: 'ftp://x' } }, /"referral.referralUrl" must be an http or https URL/],
    [{ socialShare: { platforms: ['myspace'] } }, /"socialShare.platforms.0" must be one of/],
    [{ widget: { languages: ['en', 'en'] } }, /"widget.languages" must not repeat a value/],
    [{ widget: { languages: ['fr'] } }, /"widget.defaultLanguage" "en" must be one of "widget.languages"/],
    [{ widget: { displayMode: 'modal' } }, /"widget.displayMode" must be one of floating, custom/],
    [{ widget: { theme: { primaryColor: 'blue' } } }, /"widget.theme.primaryColor" must be a hex color/],
    [{ widget: { allowedOrigins: ['https://shop.example/path'] } }, /"widget.allowedOrigins.0" must hold origins/],
    [{ widget: { features: { chat: true } } }, /Unknown field "widget.features.chat"/],
  ];
  it.each(bad)('PATCH /project %j → 400', async (body, message) => {
    const before = server.ctx.db.prepare('SELECT * FROM projects').all();
    const res = await server.api.patch('/api/v1/project', body);
    expect(res.status, res.text).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(server.ctx.db.prepare('SELECT * FROM projects').all()).toEqual(before);
  });
});
