import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, request, type ApiResponse } from '../helpers/http.ts';
import { configureCommunity, sendCommunityEvent } from '../helpers/community.ts';
import { startFakeWooCommerce, wooOrder, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { startTestServer, TestClock, type TestServer } from '../helpers/server.ts';
import { widgetClient } from '../helpers/widget.ts';

/**
 * The lockout attack: an outsider spends an address's failed-authentication budget (behind a
 * reverse proxy without --trusted-proxy, every shopper's address) and hopes the shop's own right
 * credentials are then refused. They never are: only wrong ones are limited. Production defaults.
 */

const SECOND = 1000;
const METRICS_TOKEN = 'pcm_lockout-test-metrics-token-0123456789';

describe('a valid credential is never refused because of someone else\'s failures', () => {
  const clock = new TestClock(new Date('2026-03-01T10:00:00.000Z'));
  let server: TestServer;
  let store: FakeWooCommerce;
  let communitySecret: string;
  let session: string;
  let storeId: string;
  let order = 7000;

  beforeAll(async () => {
    server = await startTestServer({ clock, guard: {} });
    server.ctx.metricsToken = METRICS_TOKEN;
    store = await startFakeWooCommerce();
    const connected = await server.api.post('/api/commerce/connect', {
      siteUrl: store.url, consumerKey: store.consumerKey, consumerSecret: store.consumerSecret, organizationId: 'org_1',
    });
    expect(connected.status, connected.text).toBe(201);
    storeId = connected.body.id;
    communitySecret = await configureCommunity(server);
    const init = await widget('shopper').post('/init', {});
    expect(init.status).toBe(200);
    session = init.body.session.token;
  });
  afterAll(async () => {
    await server.stop();
    await store.stop();
  });

  const widget = (externalId: string) =>
    widgetClient(server.url, { publicKey: server.publishableKey, widgetSecret: server.widgetSecret }, externalId, clock.now);
  const wrongKey = (n: number) => client(server.url, `sk_live_guess${n}`).get('/api/v1/project');
  const event = (n: number) => ({ eventId: `lockout-${n}`, eventType: 'MEMBER_JOIN', communityUserId: `user-${n}` });

  /** Every right credential of every surface, from the address whose failure budget is spent: each must pass. */
  const rightOnes: [string, () => Promise<ApiResponse>][] = [
    ['secret key (server API)', () => server.api.get('/api/v1/project')],
    ['secret key (commerce API)', () => server.api.get(`/api/commerce/stores/${storeId}/settings`)],
    ['secret key (community log)', () => server.api.get('/api/community/events/logs')],
    ['widget ticket', () => widget('shopper').get('/profile')],
    ['widget session', () => client(server.url).get('/api/widget/profile', { headers: { authorization: `Bearer ${session}` } })],
    ['publishable key (guest view)', () => client(server.url).get(`/api/widget/guest?publicKey=${server.publishableKey}`)],
    ['signed store delivery', async () => {
      const [delivered] = await store.deliver('order.updated', wooOrder({ id: ++order, status: 'processing', modified: '2026-03-01T10:00:00' }));
      return delivered as unknown as ApiResponse;
    }],
    ['signed bot event', () => sendCommunityEvent(server, communitySecret, event(++order))],
    ['metrics token', () => client(server.url, METRICS_TOKEN).get('/metrics')],
  ];

  /** Every kind of wrong credential: once the budget is spent, each gets 429 with Retry-After. */
  const wrongOnes: [string, () => Promise<ApiResponse>][] = [
    ['secret key', () => wrongKey(999)],
    ['widget ticket', () => request(server.url, 'GET', '/api/widget/profile', {
      headers: { 'x-widget-auth': Buffer.from(JSON.stringify({ publicKey: server.publishableKey, externalId: 'x', timestamp: clock.now().getTime(), signature: 'f'.repeat(64) })).toString('base64') },
    })],
    ['widget session', () => client(server.url).get('/api/widget/profile', { headers: { authorization: 'Bearer pcs_forged.forged' } })],
    ['publishable key', () => client(server.url).get('/api/widget/guest?publicKey=pk_live_guessguessguess')],
    ['store signature', () => request(server.url, 'POST', `/api/commerce/webhooks/${storeId}`, {
      body: wooOrder({ id: 1, status: 'processing', modified: '2026-03-01T10:00:00' }), headers: { 'x-wc-webhook-topic': 'order.updated', 'x-wc-webhook-signature': 'Zm9yZ2Vk' },
    })],
    ['bot signature', () => sendCommunityEvent(server, communitySecret, event(1), { signature: 'f'.repeat(64) })],
    ['metrics token', () => client(server.url, 'pcm_wrong').get('/metrics')],
  ];

  it('after 60 wrong keys from one address, every right credential from it still passes; every wrong one gets 429', async () => {
    for (let i = 0; i < 60; i++) expect((await wrongKey(i)).status).toBe(401);
    for (const [what, call] of rightOnes) {
      const res = await call();
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    for (const [what, call] of wrongOnes) {
      const res = await call();
      expect(res.status, `${what}: ${JSON.stringify(res.body)}`).toBe(429);
      expect(res.body.error, what).toBe('rate_limited');
      expect(Number(res.headers['retry-after']), what).toBeGreaterThanOrEqual(1);
    }
  });

  it('2 wrong keys a second keep the wrong ones refused, and the right ones answered, for as long as they come', async () => {
    for (let second = 0; second < 30; second++) {
      clock.advance(SECOND);
      for (let i = 0; i < 2; i++) expect((await wrongKey(i)).status).toBe(429);
      const [what, call] = rightOnes[second % rightOnes.length]!;
      expect((await call()).status, what).toBe(200);
    }
  });

  it('the budget refills as before: a minute later one wrong key is checked (401) again', async () => {
    clock.advance(60 * SECOND);
    expect((await wrongKey(1)).status).toBe(401);
    expect((await wrongKey(2)).status).toBe(429);
  });
});

describe('each request takes one token from each limit it meets', () => {
  it('the community linking routes take one token of the address limit, not two', async () => {
    const server = await startTestServer({ guard: { rateLimits: { address: '3/min' } } });
    try {
      for (let i = 0; i < 3; i++) expect((await request(server.url, 'GET', '/api/community/auth/linked')).status, `request ${i + 1}`).toBe(200);
      const refused = await request(server.url, 'GET', '/api/community/auth/linked');
      expect(refused.status).toBe(429);
      expect(refused.body.error).toBe('rate_limited');
    } finally {
      await server.stop();
    }
  });
});
