// Integrity (issue 47): the attacks that minted points or moved them to the wrong member, each
// replayed as an outsider would. The cap on one posting holds on every path, a store order cannot
// be farmed by cancelling and completing it again, and a Discord link is bound to the browser that
// started it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../../src/domain/ledger/audit.ts';
import { configureCommunity, postLinkStart } from '../helpers/community.ts';
import { startFakeDiscord } from '../helpers/fake-discord.ts';
import { request } from '../helpers/http.ts';
import { widgetHeader } from '../helpers/widget.ts';
import { connectFakeStore, wooOrder, type FakeWooCommerce, type OrderSpec } from '../helpers/fake-woocommerce.ts';
import { startTestServer, tableCounts, TestClock, type TestServer } from '../helpers/server.ts';

const MINUTE = 60_000;
let server: TestServer;
let store: FakeWooCommerce;
let storeId: string;

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-01-15T12:00:00Z')) });
  ({ store, storeId } = await connectFakeStore(server));
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
  await store.stop();
});

const balance = async (externalId: string) => (await server.api.get(`/api/v1/members/${encodeURIComponent(externalId)}`)).body.points as number;
const deliverOrder = (spec: OrderSpec) => store.deliverOne('order.updated', wooOrder(spec));

describe('the cap of 1,000,000,000 points on one posting holds on every path', () => {
  it('a 1e9 game prize under a ×100 multiplier event is refused, and nothing of the play is written', async () => {
    expect((await server.api.post('/api/v1/members', { externalId: 'gambler' })).status).toBe(201);
    const game = await server.api.post('/api/v1/games', { name: 'Jackpot', type: 'SPIN_WHEEL', prizes: [{ name: 'Jackpot', value: 1_000_000_000, weight: 1 }] });
    expect(game.status, game.text).toBe(201);
    const now = server.clock.now().getTime();
    const event = await server.api.post('/api/v1/multipliers', {
      name: 'Hundredfold', multiplier: 100, startsAt: new Date(now - MINUTE).toISOString(), endsAt: new Date(now + 60 * MINUTE).toISOString(),
    });
    expect(event.status, event.text).toBe(201);
    const before = tableCounts(server);
    const play = await server.api.post(`/api/v1/games/${game.body.id}/play`, { externalId: 'gambler' });
    expect(play.status, play.text).toBe(400);
    expect(play.body).toEqual({ error: 'award_too_large', message: expect.stringContaining('100000000000 points (1000000000 points × 100)') });
    expect(tableCounts(server)).toEqual(before);
    expect(await balance('gambler')).toBe(0);
    // The same prize without the event pays: the cap is on the posting, not on the catalog's values.
    expect((await server.api.patch(`/api/v1/multipliers/${event.body.id}`, { isActive: false })).status).toBe(200);
    const plain = await server.api.post(`/api/v1/games/${game.body.id}/play`, { externalId: 'gambler' });
    expect(plain.status, plain.text).toBe(200);
    expect(await balance('gambler')).toBe(1_000_000_000);
  });

  it('one signed store order worth 29,999,999,999,998 points is refused (400), and nothing of it is written', async () => {
    await server.api.patch(`/api/commerce/stores/${storeId}/settings`, { pointsPerDollar: 10_000, productOverrides: { 11: { multiplier: 100 } } });
    const before = tableCounts(server);
    const lines = [{ productId: 11, quantity: 1, price: '29999999.99', tax: '0.00' }];
    const res = await deliverOrder({ id: 7001, status: 'completed', customerId: 701, lines, shipping: '0.00', shippingTax: '0.00', modified: '2026-01-15T12:00:01' });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toBe('award_too_large');
    expect(tableCounts(server)).toEqual(before);
    await server.api.patch(`/api/commerce/stores/${storeId}/settings`, { pointsPerDollar: 1, productOverrides: {} });
  });
});

describe('a store order cannot be farmed', () => {
  it('cancelled after its points were spent, then completed again, it pays only what the cancellation took back, cycle after cycle', async () => {
    const customer = 702;
    const member = String(customer);
    const spend = async (points: number) => expect((await server.api.post(`/api/v1/members/${member}/points`, { amount: -points })).status).toBe(200);
    let modified = 0;
    const send = async (status: string) => {
      modified++;
      const res = await deliverOrder({ id: 7002, status, customerId: customer, modified: `2026-01-15T12:${String(modified).padStart(2, '0')}:00` });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    };
    await send('completed');
    expect(await balance(member)).toBe(80);
    let spent = 0;
    for (let cycle = 0; cycle < 3; cycle++) {
      const held = await balance(member);
      if (held > 0) await spend(held);
      spent += held;
      await send('cancelled');
      expect(await balance(member)).toBe(0);
      await send('completed');
    }
    // The member spent 80 once: every later cycle settled the debt instead of paying again.
    expect(spent).toBe(80);
    expect(await balance(member)).toBe(0);
    const row = server.ctx.db.prepare('SELECT net_points, shortfall, awarded FROM commerce_orders WHERE order_id = 7002').get();
    expect(row).toEqual({ net_points: 80, shortfall: 0, awarded: 1 });

    // Points the member has when the order is cancelled are taken back; completing it again pays them back, once.
    expect((await server.api.post(`/api/v1/members/${member}/points`, { amount: 50 })).status).toBe(200);
    await send('cancelled');
    expect(await balance(member)).toBe(0);
    expect(server.ctx.db.prepare('SELECT net_points, shortfall FROM commerce_orders WHERE order_id = 7002').get()).toEqual({ net_points: 30, shortfall: 30 });
    await send('completed');
    expect(await balance(member)).toBe(50);
    const last = (await server.api.get(`/api/v1/members/${member}/points?history=true&limit=1`)).body.transactions[0];
    expect(last).toMatchObject({ amount: 50, type: 'EARNED', source: 'order', metadata: { shortfallSettled: 30 } });
  });
});

describe('Discord account linking is bound to the browser that started it', () => {
  const CLIENT = { id: '555000111', secret: 'oauth-client-secret' };
  let shop: TestServer;
  let discord: Awaited<ReturnType<typeof startFakeDiscord>>;
  beforeAll(async () => {
    discord = await startFakeDiscord(CLIENT);
    process.env.PUNCHCARD_DISCORD_API_URL = discord.apiUrl;
    process.env.PUNCHCARD_DISCORD_AUTHORIZE_URL = 'https://discord.test/oauth2/authorize';
    // A production server: its public URL is https, so the link's cookie is a __Host- cookie.
    shop = await startTestServer({ publicUrl: 'https://loyalty.example' });
    await configureCommunity(shop, { oauthClientId: CLIENT.id, oauthClientSecret: CLIENT.secret });
    for (const externalId of ['mallory', 'victim']) expect((await shop.api.post('/api/v1/members', { externalId })).status).toBe(201);
    discord.users.push({ code: 'victim-consents', id: '300000000000000001', username: 'victim_d' });
    discord.users.push({ code: 'victim-again', id: '300000000000000001', username: 'victim_d' });
  });
  afterAll(async () => {
    expect(checkLedger(shop.ctx.db)).toEqual([]);
    await shop.stop();
    await discord.close();
  });

  const startUrl = async (externalId: string) => {
    const auth = widgetHeader({ publicKey: shop.publishableKey, widgetSecret: shop.widgetSecret }, externalId, shop.clock.now().getTime());
    const res = await request(shop.url, 'GET', '/api/widget/community', { headers: { 'x-widget-auth': auth } });
    expect(res.status, res.text).toBe(200);
    return res.body.url as string;
  };
  const callback = (query: Record<string, string>, cookie?: string) =>
    request(shop.url, 'GET', `/api/community/auth/callback?${new URLSearchParams(query)}`, { headers: cookie ? { cookie } : {} });
  const linkedMember = () => shop.ctx.db.prepare(`SELECT m.external_id FROM community_links l JOIN members m ON m.id = l.member_id
    WHERE l.community_user_id = '300000000000000001'`).pluck().get();

  it("a victim who follows the attacker's authorize link does not link their Discord to the attacker's member", async () => {
    // Mallory starts linking in her own browser and keeps Discord's URL instead of consenting.
    const mallory = await postLinkStart(shop, await startUrl('mallory'));
    expect(mallory.status, mallory.text).toBe(303);
    expect(mallory.headers['set-cookie']).toEqual([expect.stringMatching(/^__Host-punchcard_link=[\w-]{32}; Max-Age=600; Path=\/; Secure; HttpOnly; SameSite=Lax$/)]);
    const trap = mallory.link!.discordUrl;

    // The victim follows it, consents on Discord, and Discord sends the victim's browser back:
    // without the cookie, or with the one of a link the victim started for themselves, it is refused.
    const own = await postLinkStart(shop, await startUrl('victim'));
    for (const cookie of [undefined, own.link!.cookie]) {
      const res = await callback({ code: 'victim-consents', state: trap.searchParams.get('state')! }, cookie);
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toContain('not started in this browser');
    }
    expect(discord.tokenRequests).toHaveLength(0);
    expect(linkedMember()).toBeUndefined();

    // Sending the start URL instead does not help: only a page the shop allows may post it, and a link is no POST.
    const start = new URL(await startUrl('mallory'));
    expect((await postLinkStart(shop, start.href, 'https://mallory.example')).status).toBe(403);
    expect((await request(shop.url, 'GET', start.pathname + start.search)).status).toBe(405);

    // The victim's own link still works: their Discord goes to their own member, not 409.
    const linked = await callback({ code: 'victim-again', state: own.link!.state }, own.link!.cookie);
    expect(linked.status, linked.text).toBe(302);
    expect(linked.headers['set-cookie']).toEqual([expect.stringMatching(/^__Host-punchcard_link=; Max-Age=0; Path=\/; Secure/)]);
    expect(linkedMember()).toBe('victim');
    expect((await shop.api.get('/api/v1/members/mallory')).body.points).toBe(0);
    // And its state cannot be replayed.
    expect((await callback({ code: 'victim-again', state: own.link!.state }, own.link!.cookie)).body.message).toContain('already used');
  });
});
