import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { client } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { widgetHeader } from './helpers/widget.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await server.api.post('/api/v1/members', { externalId: 'target' });
  await server.api.post('/api/v1/members/target/points', { amount: 500 });
});
afterAll(() => server.stop());

/** A small deterministic PRNG, so a failure reproduces. */
function random(seed: number) {
  return () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
    return seed / 2 ** 31;
  };
}

const FIELDS = ['externalId', 'email', 'name', 'avatarUrl', 'phone', 'dateOfBirth', 'metadata', 'amount', 'description',
  'referenceId', 'expiresAt', 'idempotencyKey', 'origin', 'member', 'publicKey', 'timestamp', 'signature', 'url', 'events', '__proto__', 'constructor', '',
  // catalog, quests, badges, project settings
  'key', 'completionMode', 'action', 'targetCount', 'points', 'badgeId', 'repeatable', 'cooldownMinutes', 'startsAt', 'endsAt', 'isActive',
  'type', 'pointsCost', 'stock', 'maxClaimsPerUser', 'minLevel', 'discountConfig', 'rarity', 'criteria', 'prizes', 'streakBonuses',
  'code', 'rewardType', 'rewardId', 'multiplier', 'sources', 'level', 'minTotalPointsEarned', 'event', 'properties', 'progress',
  'timezone', 'welcomeBonus', 'referral', 'widget', 'socialShare', 'referralCode',
  // social share
  'platform', 'shareType',
  // commerce
  'consumerKey', 'pointsPerDollar', 'rounding', 'productOverrides', 'storeId', 'rewardClaimId', 'discountType', 'discountValue',
  // community
  'guildId', 'messagePoints', 'bonusRoles', 'includedChannels', 'eventType', 'eventId', 'communityUserId', 'channelId'];

function anyValue(rand: () => number, depth = 0): unknown {
  const pick = Math.floor(rand() * 15);
  switch (pick) {
    case 0: return null;
    case 1: return rand() < 0.5;
    case 2: return Math.floor(rand() * 2_000) - 1_000;
    case 3: return (rand() - 0.5) * 1e308;
    case 4: return rand() * 10;
    case 5: return '';
    case 6: return 'x'.repeat(Math.floor(rand() * 600));
    case 7: return '2026-02-30T10:00:00Z';
    case 8: return 'a@b';
    case 9: return '\u0000\u001f\ud800';
    case 10: return depth > 2 ? [] : [anyValue(rand, depth + 1), anyValue(rand, depth + 1)];
    case 11: return depth > 2 ? {} : { [FIELDS[Math.floor(rand() * FIELDS.length)]!]: anyValue(rand, depth + 1) };
    case 12: return rand() < 0.5 ? 'https://example.com/a.png' : 'https://10.0.0.1/';
    case 13: return ['points.awarded', 'member.created'];
    default: return String(Math.floor(rand() * 1e6));
  }
}

function anyBody(rand: () => number): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of FIELDS) if (rand() < 0.3) body[field] = anyValue(rand);
  return body;
}

const ROUTES: [string, string][] = [
  ['POST', '/api/v1/members'],
  ['PATCH', '/api/v1/members/target'],
  ['POST', '/api/v1/members/target/points'],
  ['DELETE', '/api/v1/members/nobody'],
  ['POST', '/api/v1/webhooks'],
  ['PATCH', '/api/v1/webhooks/whk_nobody'],
  ['DELETE', '/api/v1/webhooks/whk_nobody'],
  ['POST', '/api/v1/webhooks/whk_nobody/test'],
  ['POST', '/api/v1/webhooks/whk_nobody/rotate-secret'],
  ['POST', '/api/v1/quests'],
  ['POST', '/api/v1/rewards'],
  ['POST', '/api/v1/badges'],
  ['POST', '/api/v1/games'],
  ['POST', '/api/v1/promo-codes'],
  ['POST', '/api/v1/multipliers'],
  ['POST', '/api/v1/levels'],
  ['PATCH', '/api/v1/quests/qst_nope'],
  ['DELETE', '/api/v1/levels/lvl_nope'],
  ['PATCH', '/api/v1/project'],
  ['POST', '/api/v1/events'],
  ['POST', '/api/v1/quests/qst_nope/progress'],
  ['POST', '/api/v1/quests/qst_nope/complete'],
  ['POST', '/api/v1/members/target/badges'],
  ['DELETE', '/api/v1/members/target/badges'],
  // games, check-in, social share
  ['POST', '/api/v1/games/gam_nope/play'],
  ['POST', '/api/v1/games/gam_nope/checkin'],
  ['POST', '/api/v1/members/target/social-share'],
  // rewards, promo codes, referrals
  ['POST', '/api/v1/rewards/rwd_nope/redeem'],
  ['POST', '/api/v1/promo-codes/redeem'],
  ['POST', '/api/v1/referrals/apply'],
  // WooCommerce (a connect body never passes validation here: no siteUrl field, so no store is called)
  ['POST', '/api/commerce/connect'],
  ['DELETE', '/api/commerce/connect'],
  ['PATCH', '/api/commerce/stores/store_nope/settings'],
  ['POST', '/api/commerce/coupons'],
  ['POST', '/api/commerce/webhooks/store_nope'],
  // community: settings, and the signed endpoint (unsigned here: 401)
  ['PATCH', '/api/v1/community/settings'],
  ['POST', '/api/v1/community/events'],
];

describe('arbitrary request bodies', () => {
  it('never produce a 5xx, always answer {error, message} on failure, and keep the ledger sound', async () => {
    const rand = random(20261121);
    for (let i = 0; i < 400; i++) {
      const [method, path] = ROUTES[i % ROUTES.length]!;
      const raw = rand() < 0.1 ? '{"amount": 1,' : JSON.stringify(anyBody(rand));
      const res = await server.api.call(method, path, { raw, headers: { 'content-type': 'application/json' } });
      expect(res.status, `${method} ${path} ${raw}`).toBeLessThan(500);
      if (res.status >= 400) expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
    }
    // Lone surrogates cannot be percent-encoded; send malformed escapes in their place.
    const encode = (value: unknown) => {
      try {
        return encodeURIComponent(String(value));
      } catch {
        return '%E0%A4%A';
      }
    };
    for (let i = 0; i < 100; i++) {
      const query = `limit=${encode(anyValue(rand))}&history=${encode(anyValue(rand))}`;
      const res = await server.api.get(`/api/v1/members/target/points?${query}`);
      expect(res.status, query).toBeLessThan(500);
    }
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });
});

describe('path parameters', () => {
  it('answer 400 naming the limit when longer than any id, instead of a 404 that repeats them', async () => {
    const res = await server.api.get(`/api/v1/members/${'a'.repeat(256)}/points`);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Path parameter "externalId" must be at most 255 characters');
    expect((await server.api.get(`/api/v1/members/${'a'.repeat(255)}`)).status).toBe(404);
    // Counted in characters, after percent-decoding: 255 two-byte letters are still an id.
    expect((await server.api.get(`/api/v1/members/${encodeURIComponent('ü'.repeat(255))}`)).status).toBe(404);
  });
});

/** Real game ids, so plays and check-ins reach the domain's limits and the ledger. */
const widgetRoutes = (gameId: string, checkinId: string): [string, string][] => [
  ['POST', '/api/widget/init'],
  ['PATCH', '/api/widget/profile'],
  ['GET', '/api/widget/history'],
  ['POST', '/api/widget/rewards'],
  ['POST', `/api/widget/games/${gameId}/play`],
  ['POST', `/api/widget/games/${checkinId}/checkin`],
  ['POST', '/api/widget/promo-code'],
  ['POST', '/api/widget/referral/code'],
  ['POST', '/api/widget/social-share'],
];

describe('arbitrary widget requests', () => {
  it('never produce a 5xx, whatever the body, the member data or the X-Widget-Auth claims', async () => {
    const rand = random(20261122);
    const anon = client(server.url);
    const signer = { publicKey: server.publishableKey, widgetSecret: server.widgetSecret };
    const game = await server.api.post('/api/v1/games', { name: 'Wheel', type: 'SPIN_WHEEL', prizes: [{ name: 'Ten', value: 10, weight: 1 }] });
    const checkin = await server.api.post('/api/v1/games', { name: 'Daily', type: 'DAILY_CHECKIN', checkinPoints: 5 });
    const routes = widgetRoutes(game.body.id, checkin.body.id);
    for (let i = 0; i < 450; i++) {
      const [method, path] = routes[i % routes.length]!;
      const body = anyBody(rand);
      // Arbitrary claims (any field missing or of any type), arbitrary member data, or a plain valid header that reaches the route.
      const variant = Math.floor(rand() * 3);
      const header = variant === 0
        ? Buffer.from(JSON.stringify(body)).toString('base64')
        : widgetHeader(signer, 'widget-target', Date.now(), variant === 1 ? { member: rand() < 0.5 ? anyValue(rand) : body } : {});
      // An empty object now and then: the bodiless routes (play, check-in, new referral code) then reach the domain.
      const raw = method === 'GET' ? undefined : rand() < 0.2 ? '{}' : JSON.stringify(anyBody(rand));
      const res = await anon.call(method, path, { ...(raw === undefined ? {} : { raw }), headers: { 'content-type': 'application/json', 'x-widget-auth': header } });
      expect(res.status, `${method} ${path} ${raw}`).toBeLessThan(500);
      if (res.status >= 400) expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
    }
    expect(server.ctx.db.prepare('SELECT count(*) FROM game_plays').pluck().get()).toBeGreaterThan(0);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });
});
