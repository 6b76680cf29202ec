import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, tableCounts, TestClock, type TestServer } from './helpers/server.ts';
import { client } from './helpers/http.ts';
import { widgetClient, type WidgetSigner } from './helpers/widget.ts';

// Widget writes honour Idempotency-Key as the server API does, with keys scoped to the member:
// a retried claim, play or check-in is answered from its first run and changes nothing.

let server: TestServer;
let signer: WidgetSigner;
let gameId: string;
let checkinId: string;
let rewardId: string;

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-06-01T10:00:00Z')) });
  signer = { publicKey: server.publishableKey, widgetSecret: server.widgetSecret };
  const create = async (kind: string, body: Record<string, unknown>) => {
    const res = await server.api.post(`/api/v1/${kind}`, body);
    expect(res.status, res.text).toBe(201);
    return res.body.id as string;
  };
  gameId = await create('games', { name: 'Wheel', type: 'SPIN_WHEEL', pointsCost: 5, prizes: [{ name: 'Twenty', value: 20, weight: 1 }] });
  checkinId = await create('games', { name: 'Daily', type: 'DAILY_CHECKIN', checkinPoints: 5 });
  rewardId = await create('rewards', { name: 'Tote bag', type: 'PHYSICAL', pointsCost: 50, stock: 10 });
  await create('promo-codes', { code: 'ONCE', rewardType: 'POINTS', points: 25 });
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

/** A member's widget, after init, holding `points`. */
async function shopper(externalId: string, points: number) {
  const w = widgetClient(server.url, signer, externalId, server.clock.now);
  expect((await w.post('/init')).status).toBe(200);
  expect((await server.api.post(`/api/v1/members/${externalId}/points`, { amount: points })).status).toBe(200);
  return w;
}

const key = (value: string) => ({ 'idempotency-key': value });

describe('Idempotency-Key on widget writes', () => {
  it('replays the first answer of every widget write for the same key and body, and changes nothing', async () => {
    const w = await shopper('retry', 500);
    const writes: [method: 'post' | 'patch', path: string, body: unknown][] = [
      ['post', '/rewards', { rewardId }],
      ['post', `/games/${gameId}/play`, {}],
      ['post', `/games/${checkinId}/checkin`, undefined],
      ['post', '/promo-code', { code: 'ONCE' }],
      ['post', '/social-share', { platform: 'facebook' }],
      ['post', '/referral/code', {}],
      ['patch', '/profile', { name: 'Renamed' }],
    ];
    for (const [method, path, body] of writes) {
      const first = await w[method](path, body, key(`first ${path}`));
      expect(first.status, `${path}: ${first.text}`).toBe(200);
      expect(first.headers['idempotent-replayed']).toBeUndefined();
      const counts = tableCounts(server);
      const balance = (await server.api.get('/api/v1/members/retry')).body.points;
      const again = await w[method](path, body, key(`first ${path}`));
      expect(again.status, `${path}: ${again.text}`).toBe(200);
      expect(again.headers['idempotent-replayed']).toBe('true');
      expect(again.body).toEqual(first.body);
      expect(tableCounts(server), path).toEqual(counts);
      expect((await server.api.get('/api/v1/members/retry')).body.points, path).toBe(balance);
    }
    // Without a key each call is its own: the second play is played.
    const played = (await w.post(`/games/${gameId}/play`, {})).body.play.id;
    expect((await w.post(`/games/${gameId}/play`, {})).body.play.id).not.toBe(played);
  });

  it('answers 409 when the same key comes with another body, and changes nothing', async () => {
    const w = await shopper('mixup', 500);
    expect((await w.patch('/profile', { name: 'First' }, key('profile-1'))).status).toBe(200);
    const counts = tableCounts(server);
    const other = await w.patch('/profile', { name: 'Second' }, key('profile-1'));
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ error: 'Conflict', message: 'Idempotency-Key "profile-1" was already used with a different request. Use a new key for a new request.' });
    const otherRoute = await w.post('/rewards', { rewardId }, key('profile-1'));
    expect(otherRoute.status).toBe(409);
    expect(tableCounts(server)).toEqual(counts);
    expect((await w.get('/profile')).body.name).toBe('First');
  });

  it("keeps each member's keys their own: two shoppers (and the shop's server) may send the same key", async () => {
    const ann = await shopper('ann', 100);
    const bob = await shopper('bob', 100);
    const annClaim = await ann.post('/rewards', { rewardId }, key('claim-1'));
    const bobClaim = await bob.post('/rewards', { rewardId }, key('claim-1'));
    expect(annClaim.status, annClaim.text).toBe(200);
    expect(bobClaim.status, bobClaim.text).toBe(200);
    expect(bobClaim.headers['idempotent-replayed']).toBeUndefined();
    expect(bobClaim.body.claim.id).not.toBe(annClaim.body.claim.id);
    expect((await server.api.get('/api/v1/members/ann/claims')).body.claims).toHaveLength(1);
    expect((await server.api.get('/api/v1/members/bob/claims')).body.claims).toHaveLength(1);
    const award = await server.api.post('/api/v1/members/ann/points', { amount: 1 }, { headers: key('claim-1') });
    expect(award.status, award.text).toBe(200);
    expect(award.headers['idempotent-replayed']).toBeUndefined();
  });

  it('refuses a malformed key before any work, and keeps a failed write retryable with its key', async () => {
    const w = await shopper('careful', 10);
    const counts = tableCounts(server);
    const bad = await w.post('/rewards', { rewardId }, key('k'.repeat(256)));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('The Idempotency-Key header must be 1 to 255 printable characters.');
    const poor = await w.post('/rewards', { rewardId }, key('claim-later'));
    expect(poor.status).toBe(400);
    expect(poor.body.error).toBe('Insufficient points');
    expect(tableCounts(server)).toEqual(counts);
    expect((await server.api.post('/api/v1/members/careful/points', { amount: 100 })).status).toBe(200);
    const later = await w.post('/rewards', { rewardId }, key('claim-later'));
    expect(later.status, later.text).toBe(200);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
  });

  it('lets the page send the header: preflights of paths that change something list it', async () => {
    const anon = client(server.url);
    const preflight = (path: string) => anon.call('OPTIONS', `/api/widget${path}`, {
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'idempotency-key' },
    });
    for (const path of ['/rewards', `/games/${gameId}/play`, '/promo-code', '/profile']) {
      expect((await preflight(path)).headers['access-control-allow-headers'], path).toBe('X-Widget-Auth, Authorization, Content-Type, Idempotency-Key');
    }
    expect((await preflight('/init')).headers['access-control-allow-headers']).toBe('X-Widget-Auth, Authorization, Content-Type');
  });
});
