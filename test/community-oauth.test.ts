import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configureCommunity, postLinkStart, type StartedLink } from './helpers/community.ts';
import { startFakeDiscord } from './helpers/fake-discord.ts';
import { request } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { widgetHeader } from './helpers/widget.ts';

const CLIENT = { id: '555000111', secret: 'oauth-client-secret' };
let server: TestServer;
let discord: Awaited<ReturnType<typeof startFakeDiscord>>;

beforeAll(async () => {
  discord = await startFakeDiscord(CLIENT);
  process.env.PUNCHCARD_DISCORD_API_URL = discord.apiUrl;
  process.env.PUNCHCARD_DISCORD_AUTHORIZE_URL = 'https://discord.test/oauth2/authorize';
  server = await startTestServer();
  await configureCommunity(server, { oauthClientId: CLIENT.id, oauthClientSecret: CLIENT.secret });
  for (const externalId of ['ann', 'bob']) expect((await server.api.post('/api/v1/members', { externalId })).status).toBe(201);
});
afterAll(async () => {
  await server.stop();
  await discord.close();
});

const asMember = (externalId: string) => ({
  headers: { 'x-widget-auth': widgetHeader({ publicKey: server.publishableKey, widgetSecret: server.widgetSecret }, externalId, server.clock.now().getTime()) },
});
/** Starts linking as the widget does (GET /api/community/auth, then its URL posted from the shop's page): Discord's URL and the cookie. */
const begin = async (externalId: string): Promise<StartedLink> => {
  const res = await request(server.url, 'GET', '/api/community/auth', asMember(externalId));
  expect(res.status, res.text).toBe(200);
  const started = await postLinkStart(server, res.body.url);
  expect(started.status, started.text).toBe(303);
  cookie = started.link!.cookie;
  return started.link!;
};
/** The cookie of the link started last: the tests' browser. */
let cookie = '';
const start = async (externalId: string) => (await begin(externalId)).discordUrl;
/** The callback, from the browser that started the latest link (its cookie). */
const callback = (query: Record<string, string>, headers: Record<string, string> = { cookie }) =>
  request(server.url, 'GET', `/api/community/auth/callback?${new URLSearchParams(query)}`, { headers });
const balance = async (externalId: string) => (await server.api.get(`/api/v1/members/${externalId}`)).body.points as number;

describe('Discord account linking', () => {
  it('answers the authorize URL for a signed-in member only', async () => {
    const url = await start('ann');
    expect(url.origin + url.pathname).toBe('https://discord.test/oauth2/authorize');
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code', client_id: CLIENT.id, scope: 'identify', redirect_uri: `${server.url}/api/community/auth/callback`,
      code_challenge_method: 'S256',
    });
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get('state')).not.toContain('ann');
    expect((await request(server.url, 'GET', '/api/community/auth')).status).toBe(401);
  });

  it('refuses a callback with a bad, altered or expired state, and a denied authorisation', async () => {
    const state = (await start('ann')).searchParams.get('state')!;
    discord.users.push({ code: 'code-ann', id: '100000000000000001', username: 'ann_d' });
    // One character changed, never to itself (a state that ended in "AA" once made this the same state).
    const altered = `${state.slice(0, -2)}${state.at(-2) === 'A' ? 'B' : 'A'}${state.at(-1)}`;
    const queries: Record<string, string>[] = [{ code: 'code-ann', state: 'nonsense' }, { code: 'code-ann', state: altered }, { code: 'code-ann' }, { error: 'access_denied', state }];
    for (const query of queries) {
      const res = await callback(query);
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
    }
    server.clock.advance(11 * 60 * 1000);
    const expired = await callback({ code: 'code-ann', state });
    expect(expired.status).toBe(400);
    expect(expired.body.message).toContain('expired');
    expect(discord.tokenRequests).toHaveLength(0);
  });

  it('links on a good callback (PKCE, form-encoded client auth), pays the link bonus once, and lands on the success page', async () => {
    const url = await start('ann');
    const res = await callback({ code: 'code-ann', state: url.searchParams.get('state')! });
    expect(res.status, res.text).toBe(302);
    expect(res.headers.location).toBe('/api/community/auth/linked');
    const page = await request(server.url, 'GET', '/api/community/auth/linked');
    expect(page.status).toBe(200);
    expect(page.text).toContain('Discord account is linked');

    const [token] = discord.tokenRequests;
    expect(token!.contentType).toBe('application/x-www-form-urlencoded');
    expect(token!.form).toMatchObject({ grant_type: 'authorization_code', code: 'code-ann', redirect_uri: `${server.url}/api/community/auth/callback` });
    expect(createHash('sha256').update(token!.form.code_verifier!).digest('base64url')).toBe(url.searchParams.get('code_challenge'));
    expect(await balance('ann')).toBe(100);

    // The same pair again: nothing new, no second bonus.
    const again = await callback({ code: 'code-ann', state: (await start('ann')).searchParams.get('state')! });
    expect(again.status).toBe(302);
    expect(await balance('ann')).toBe(100);
    const logs = await server.api.get('/api/community/events/logs');
    expect(logs.body.events[0]).toMatchObject({ eventType: 'ACCOUNT_LINK', externalId: 'ann', pointsAwarded: 100 });
  });

  it('refuses a second link attempt: another account for the same member, or the same account for another member (409)', async () => {
    discord.users.push({ code: 'code-ann-alt', id: '100000000000000002', username: 'ann_alt' });
    const otherAccount = await callback({ code: 'code-ann-alt', state: (await start('ann')).searchParams.get('state')! });
    expect(otherAccount.status).toBe(409);
    discord.users.push({ code: 'code-ann-again', id: '100000000000000001', username: 'ann_d' });
    const takenAccount = await callback({ code: 'code-ann-again', state: (await start('bob')).searchParams.get('state')! });
    expect(takenAccount.status).toBe(409);
    expect(await balance('bob')).toBe(0);
    expect(await balance('ann')).toBe(100);
  });

  it('starts only from a page the project allows: a form POST naming its origin (403 otherwise), never a GET', async () => {
    const { body } = await request(server.url, 'GET', '/api/community/auth', asMember('bob'));
    const url = new URL(body.url);
    expect(`${url.origin}${url.pathname}`).toBe(`${server.url}/api/community/auth/start`);
    for (const origin of [null, 'null', 'https://attacker.example']) {
      const refused = await postLinkStart(server, body.url, origin);
      expect(refused.status, String(origin)).toBe(403);
      expect(refused.body.error).toBe('origin_not_allowed');
      expect(refused.headers['set-cookie']).toBeUndefined();
    }
    expect((await request(server.url, 'GET', url.pathname + url.search)).status).toBe(405);
    expect((await postLinkStart(server, `${server.url}/api/community/auth/start?state=nonsense`)).status).toBe(400);
    // The project's own storefront, once allowed, starts it.
    expect((await server.api.patch('/api/v1/project', { widget: { allowedOrigins: ['https://shop.example'] } })).status).toBe(200);
    const started = await postLinkStart(server, body.url, 'https://shop.example');
    expect(started.status, started.text).toBe(303);
    expect(started.headers['cache-control']).toBe('no-store');
    // A plain-http server (development) names its cookie plainly: browsers refuse a Secure cookie from http.
    expect(started.headers['set-cookie']).toEqual([expect.stringMatching(/^punchcard_link=[\w-]{32}; Max-Age=600; Path=\/api\/community\/auth; HttpOnly; SameSite=Lax$/)]);
  });

  it('binds the callback to the browser that started the link, and spends each state once', async () => {
    discord.users.push({ code: 'code-bob', id: '100000000000000003', username: 'bob_d' });
    const started = await begin('bob');
    const other = await begin('bob'); // the same member, another browser (or tab): another nonce
    for (const headers of [{}, { cookie: other.cookie }, { cookie: 'punchcard_link=forged' }] as Record<string, string>[]) {
      const refused = await callback({ code: 'code-bob', state: started.state }, headers);
      expect(refused.status, JSON.stringify(headers)).toBe(400);
      expect(refused.body.message).toContain('not started in this browser');
    }
    const tokens = discord.tokenRequests.length;
    // Discord refuses the first code; the state is spent all the same, and cannot be replayed.
    expect((await callback({ code: 'unknown-code', state: started.state }, { cookie: started.cookie })).status).toBe(400);
    const replay = await callback({ code: 'code-bob', state: started.state }, { cookie: started.cookie });
    expect(replay.status).toBe(400);
    expect(replay.body.message).toContain('already used');
    expect(discord.tokenRequests).toHaveLength(tokens + 1);
    expect(await balance('bob')).toBe(0);
    // Spent states are forgotten once they would have expired anyway.
    server.clock.advance(11 * 60 * 1000);
    await begin('bob');
    await callback({ code: 'unknown-code', state: (await begin('bob')).state });
    expect(server.ctx.db.prepare('SELECT count(*) FROM community_link_nonces').pluck().get()).toBe(1);
  });

  it('refuses a link cookie of other bytes but as many characters as the nonce (400, not 500)', async () => {
    const started = await begin('bob');
    const refused = await callback({ code: 'code-bob', state: started.state }, { cookie: `punchcard_link=${'%C3%A9'.repeat(32)}` });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.message).toContain('not started in this browser');
  });

  it('says so when Discord refuses the code', async () => {
    const res = await callback({ code: 'unknown-code', state: (await start('bob')).searchParams.get('state')! });
    expect(res.status).toBe(400);
    expect(res.body.message).toContain('Discord refused');
  });

  it("gives the widget its \"link your Discord\" state: the authorize URL until linked, then the account", async () => {
    const widget = (externalId: string) => request(server.url, 'GET', '/api/widget/community', asMember(externalId));
    const bob = await widget('bob');
    expect(bob.status, bob.text).toBe(200);
    expect(bob.body).toMatchObject({ available: true, linked: false, username: null });
    expect(new URL(bob.body.url).pathname).toBe('/api/community/auth/start');
    const started = await postLinkStart(server, bob.body.url);
    expect(started.link!.discordUrl.searchParams.get('client_id')).toBe(CLIENT.id);
    expect((await widget('ann')).body).toEqual({ available: true, linked: true, username: 'ann_d', url: null });
    const other = server.addProject('No community');
    const stranger = await request(server.url, 'GET', '/api/widget/community', {
      headers: { 'x-widget-auth': widgetHeader({ publicKey: other.publishableKey, widgetSecret: other.widgetSecret }, 'x', server.clock.now().getTime()) },
    });
    expect(stranger.body).toEqual({ available: false, linked: false, username: null, url: null });
  });

  it('forgets the link when the member is erased', async () => {
    expect((await server.api.delete('/api/v1/members/ann')).status).toBe(200);
    expect(server.ctx.db.prepare("SELECT count(*) AS n FROM community_links WHERE username = 'ann_d'").get()).toEqual({ n: 0 });
  });
});
