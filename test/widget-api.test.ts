import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { issueKey, revokeKey } from '../src/domain/project/api-keys.ts';
import { rotateWidgetSecret } from '../src/domain/project/projects.ts';
import { DEFAULT_SETTINGS, FEATURES, LANGUAGES } from '../src/domain/project/settings.ts';
import { client, type ApiResponse } from './helpers/http.ts';
import { startTestServer, tableCounts, TestClock, type TestServer } from './helpers/server.ts';
import { widgetClient, widgetHeader, type WidgetSigner } from './helpers/widget.ts';

let server: TestServer;
let signer: WidgetSigner;
let anon: ReturnType<typeof client>;

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-03-01T10:00:00Z')) });
  signer = { publicKey: server.publishableKey, widgetSecret: server.widgetSecret };
  anon = client(server.url);
});
afterAll(() => server.stop());

const now = () => server.clock.now().getTime();
const init = (header: string, body: unknown = {}, headers: Record<string, string> = {}) =>
  anon.post('/api/widget/init', body, { headers: { 'x-widget-auth': header, ...headers } });

function expectUnauthorized(res: ApiResponse, message: RegExp) {
  expect(res.status, res.text).toBe(401);
  expect(res.body.error).toBe('Unauthorized');
  expect(res.body.message).toMatch(message);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
}

describe('X-Widget-Auth', () => {
  it('accepts a header signed with the widget secret, and refuses every broken one with 401 naming the check', async () => {
    const counts = tableCounts(server);
    const b = server.addProject('Other shop');
    const ts = now();
    const revoked = issueKey(server.ctx.db, { projectId: server.projectId, type: 'publishable' }, server.clock.now());
    revokeKey(server.ctx.db, revoked.id, server.clock.now());
    const expired = issueKey(server.ctx.db, { projectId: server.projectId, type: 'publishable', expiresAt: new Date(ts + 1000) }, server.clock.now());
    const b64 = (value: unknown) => Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64');
    const good = widgetHeader(signer, 'auth-alice', ts);
    const claims = JSON.parse(Buffer.from(good, 'base64').toString()) as Record<string, unknown>;
    const countsWithKeys = tableCounts(server);

    const cases: [string, () => Promise<ApiResponse>, RegExp][] = [
      ['no header', () => anon.post('/api/widget/init', {}), /Missing X-Widget-Auth/],
      ['bad signature', () => init(widgetHeader(signer, 'auth-alice', ts, { signature: 'ab'.repeat(32) })), /signature does not match/],
      ['uppercase hex signature', () => init(widgetHeader(signer, 'auth-alice', ts, { signature: String(claims.signature).toUpperCase() })), /signature does not match/],
      ['signature for another member', () => init(b64({ ...claims, externalId: 'auth-mallory' })), /signature does not match/],
      ['signed with another project\'s secret', () => init(widgetHeader({ ...signer, widgetSecret: b.widgetSecret }, 'auth-alice', ts)), /signature does not match/],
      ['another project\'s key with this secret', () => init(widgetHeader({ ...signer, publicKey: b.publishableKey }, 'auth-alice', ts)), /signature does not match/],
      ['unknown key', () => init(widgetHeader({ ...signer, publicKey: 'pk_live_unknownunknownunknownunknown12' }, 'auth-alice', ts)), /not recognised or has been revoked/],
      ['revoked key', () => init(widgetHeader({ ...signer, publicKey: revoked.key }, 'auth-alice', ts)), /not recognised or has been revoked/],
      ['expired key', () => { server.clock.advance(2000); return init(widgetHeader({ ...signer, publicKey: expired.key }, 'auth-alice', now())); }, /publishable key expired/],
      ['secret key as publicKey', () => init(widgetHeader({ ...signer, publicKey: server.secretKey }, 'auth-alice', ts)), /must be the project's publishable key/],
      ['stale timestamp (5 min + 1 s)', () => init(widgetHeader(signer, 'auth-alice', now() - 301_000)),
        /expired: its timestamp \d+ \(milliseconds since 1970\) is more than 5 minutes old.*The server's time is \d+ ms/],
      ['future timestamp (5 min + 1 s)', () => init(widgetHeader(signer, 'auth-alice', now() + 301_000)), /more than 5 minutes in the future.*The server's time is \d+ ms/],
      ['timestamp in seconds', () => init(widgetHeader(signer, 'auth-alice', Math.floor(now() / 1000))), /looks like seconds; it must be milliseconds since 1970/],
      ['timestamp as a string', () => init(b64({ ...claims, timestamp: String(ts) })), /"timestamp" must be a number/],
      ['missing signature', () => init(b64({ ...claims, signature: undefined })), /"signature" is required/],
      ['missing externalId', () => init(b64({ ...claims, externalId: undefined })), /"externalId" is required/],
      ['not base64', () => init('this is not base64!'), /not base64/],
      ['base64 of junk', () => init(b64('{"publicKey": ')), /not base64 of a JSON object/],
      ['base64 of an array', () => init(b64([1, 2])), /must decode to a JSON object/],
      ['base64 of a number', () => init(b64('42')), /must decode to a JSON object/],
    ];
    for (const [label, attempt, message] of cases) {
      const res = await attempt();
      expect(res.body.message, label).not.toContain(String(claims.signature));
      expectUnauthorized(res, message);
    }
    expect(tableCounts(server)).toEqual(countsWithKeys);
    expect(countsWithKeys.api_keys).toBe(counts.api_keys! + 4);

    // The boundary itself passes, either way.
    expect((await init(widgetHeader(signer, 'auth-edge-past', now() - 300_000))).status).toBe(200);
    expect((await init(widgetHeader(signer, 'auth-edge-future', now() + 300_000))).status).toBe(200);
    expect((await init(widgetHeader(signer, 'auth-alice', now()))).status).toBe(200);
  });

  it('stops accepting the old widget secret as soon as it is rotated', async () => {
    expect((await init(widgetHeader(signer, 'rotating', now()))).status).toBe(200);
    const fresh = rotateWidgetSecret(server.ctx.db, server.ctx.box, server.projectId);
    expectUnauthorized(await init(widgetHeader(signer, 'rotating', now())), /signature does not match/);
    signer = { ...signer, widgetSecret: fresh };
    expect((await init(widgetHeader(signer, 'rotating', now()))).status).toBe(200);
  });
});

describe('POST /api/widget/init', () => {
  it('creates the member from `member` once, then updates only what changed', async () => {
    const member = { name: 'Ina', email: 'ina@example.com' };
    const first = await init(widgetHeader(signer, 'ina', now(), { member }), { origin: 'https://shop.example' });
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({
      project: { name: 'Default', widgetSettings: { ...DEFAULT_SETTINGS.widget, allowedOrigins: undefined } },
      member: {
        id: expect.stringMatching(/^mem_/), externalId: 'ina', name: 'Ina', email: 'ina@example.com',
        points: 0, totalPointsEarned: 0, currentStreak: 0, longestStreak: 0,
      },
      activeMultipliers: [],
      welcomeBonus: 0,
      level: { level: 0, name: null, minTotalPointsEarned: 0, next: null },
      session: { token: expect.stringMatching(/^pcs_/), expiresAt: new Date(now() + 12 * 3_600_000).toISOString() },
    });
    expect(Object.keys(first.body.project.widgetSettings)).not.toContain('allowedOrigins');
    expect(first.body.project.widgetSettings.languages).toEqual([...LANGUAGES]);
    expect(Object.keys(first.body.project.widgetSettings.features).sort()).toEqual([...FEATURES].sort());

    const updatedAt = () => server.ctx.db.prepare("SELECT updated_at FROM members WHERE external_id = 'ina'").pluck().get();
    const createdAt = updatedAt();
    server.clock.advance(1000);
    const again = await init(widgetHeader(signer, 'ina', now(), { member }));
    expect(again.body.member).toEqual(first.body.member);
    expect(updatedAt()).toBe(createdAt);

    const renamed = await init(widgetHeader(signer, 'ina', now(), { member: { name: 'Ina B' } }));
    expect(renamed.body.member).toMatchObject({ name: 'Ina B', email: 'ina@example.com' });
    expect(updatedAt()).not.toBe(createdAt);
  });

  it('refuses bad member data and bad bodies with 400 naming the field, writing nothing', async () => {
    const counts = tableCounts(server);
    const cases: [unknown, unknown, RegExp][] = [
      [{ email: 'nope' }, {}, /"member.email" must be a valid email address/],
      [{ avatarUrl: 'javascript:alert(1)' }, {}, /"member.avatarUrl" must be an http or https URL/],
      [{ metadata: { vip: true } }, {}, /Unknown field "member.metadata"/],
      ['Ann', {}, /"member" must be JSON text of the profile fields/],
      [42, {}, /"member" must be a JSON object/],
      [undefined, { origin: 5 }, /"origin" must be a string/],
      [undefined, { points: 1000 }, /Unknown field "points"/],
    ];
    for (const [member, body, message] of cases) {
      const res = await init(widgetHeader(signer, 'bad-data', now(), { member }), body);
      expect(res.status, res.text).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(tableCounts(server)).toEqual(counts);
  });
});

describe('GET and PATCH /api/widget/profile, GET /api/widget/history', () => {
  it('shows the member their profile and history, newest first, paginated', async () => {
    const w = widgetClient(server.url, signer, 'pat', server.clock.now, { name: 'Pat' });
    expect((await w.get('/profile')).status).toBe(404);
    expect((await w.post('/init')).status).toBe(200);
    for (const amount of [100, 50, -30]) {
      expect((await server.api.post('/api/v1/members/pat/points', { amount, description: `move ${amount}`, metadata: { by: 'ops' } })).status).toBe(200);
    }

    const profile = await w.get('/profile');
    expect(profile.status).toBe(200);
    expect(profile.body).toEqual({
      id: expect.stringMatching(/^mem_/), externalId: 'pat', name: 'Pat', email: null, avatarUrl: null, points: 120,
      totalPointsEarned: 150, currentStreak: 0, longestStreak: 0, lastCheckinAt: null, memberSince: server.clock.now().toISOString(),
    });

    const page = await w.get('/history?limit=2');
    expect(page.status).toBe(200);
    expect(page.body.pagination).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true });
    expect(page.body.transactions.map((t: { amount: number }) => t.amount)).toEqual([-30, 50]);
    expect(Object.keys(page.body.transactions[0]).sort()).toEqual(['amount', 'balance', 'createdAt', 'description', 'entry', 'id', 'referenceId', 'source', 'type']);
    const rest = await w.get('/history?limit=2&offset=2');
    expect(rest.body.transactions.map((t: { balance: number }) => t.balance)).toEqual([100]);
    expect(rest.body.pagination.hasMore).toBe(false);
    expect((await w.get('/history')).body.pagination.limit).toBe(20);
    for (const query of ['limit=0', 'limit=101', 'offset=-1', 'limit=x', 'page=2']) {
      const res = await w.get(`/history?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.message, query).toMatch(/Query parameter "(limit|offset)"|Unknown query parameter "page"/);
    }

    const patched = await w.patch('/profile', { name: 'Patricia', avatarUrl: 'https://cdn.example/p.png' });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ name: 'Patricia', avatarUrl: 'https://cdn.example/p.png', points: 120 });
    const counts = tableCounts(server);
    for (const [body, message] of [[{ email: 'x@y.z' }, /Unknown field "email"/], [{ name: 5 }, /"name" must be a string/], [{ avatarUrl: 'ftp://x' }, /"avatarUrl" must be an http or https URL/]] as const) {
      const res = await w.patch('/profile', body);
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(tableCounts(server)).toEqual(counts);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('answers 405 for other methods and a readable 404 for endpoints this server does not have', async () => {
    const w = widgetClient(server.url, signer, 'pat', server.clock.now);
    const res = await w.post('/profile', {});
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, PATCH, OPTIONS, HEAD');
    const missing = await w.get('/no-such-thing');
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('Not Found');
    // Without a valid signature even an unknown path says 401: nothing is revealed to strangers.
    expect((await anon.get('/api/widget/no-such-thing')).status).toBe(401);
  });
});

describe('tenancy', () => {
  it("a member of another project with the same externalId is another person; one project's widget never reaches the other's", async () => {
    const b = server.addProject('Tenant B');
    expect((await b.api.post('/api/v1/members', { externalId: 'twin', name: 'B twin' })).status).toBe(201);
    expect((await b.api.post('/api/v1/members/twin/points', { amount: 500 })).status).toBe(200);
    const before = server.ctx.db.prepare('SELECT * FROM members WHERE project_id = ?').all(b.projectId);

    const a = widgetClient(server.url, signer, 'twin', server.clock.now, { name: 'A twin' });
    expect((await a.get('/profile')).status).toBe(404);
    expect((await a.get('/history')).status).toBe(404);
    expect((await a.patch('/profile', { name: 'Hijack' })).status).toBe(404);
    const created = await a.post('/init');
    expect(created.body.member).toMatchObject({ name: 'A twin', points: 0 });
    expect((await a.get('/history')).body.transactions).toEqual([]);
    expect(server.ctx.db.prepare('SELECT * FROM members WHERE project_id = ?').all(b.projectId)).toEqual(before);

    const bw = widgetClient(server.url, { publicKey: b.publishableKey, widgetSecret: b.widgetSecret }, 'twin', server.clock.now);
    expect((await bw.get('/profile')).body).toMatchObject({ name: 'B twin', points: 500 });
  });
});

describe('CORS', () => {
  it('answers preflights for the widget headers, and lets only allowed origins (loopback and the server itself by default) make calls', async () => {
    const preflight = await anon.call('OPTIONS', '/api/widget/init', {
      headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-widget-auth,content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-headers']).toBe('X-Widget-Auth, Authorization, Content-Type');
    expect(preflight.headers['access-control-allow-methods']).toBe('GET, POST, PATCH');

    const w = widgetClient(server.url, signer, 'cors', server.clock.now);
    const counts = tableCounts(server);
    const foreign = await w.post('/init', {}, { origin: 'https://evil.example' });
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual({ error: 'origin_not_allowed', message: expect.stringContaining(
      `https://evil.example: it is not among the project's allowed origins. Allow it with: punchcard project set --project ${server.projectId} --allow-origin https://evil.example`) });
    // Readable by the refused page, so the widget can say why in the console.
    expect(foreign.headers['access-control-allow-origin']).toBe('https://evil.example');
    expect(tableCounts(server)).toEqual(counts);

    const own = new URL(server.url);
    const same = await w.post('/init', {}, { origin: own.origin });
    expect(same.status).toBe(200);
    expect(same.headers['access-control-allow-origin']).toBe(own.origin);
    const plain = await w.get('/profile');
    expect(plain.status).toBe(200);
    expect(plain.headers['access-control-allow-origin']).toBeUndefined();
    // Errors of a known project keep the header, so the widget can read the message.
    const notFound = await w.get('/nothing-here', { origin: own.origin });
    expect(notFound.status).toBe(404);
    expect(notFound.headers['access-control-allow-origin']).toBe(own.origin);
  });
});

describe('project settings seen by the widget', () => {
  it('pays the welcome bonus once, through the ledger and its multipliers, when init first creates the member', async () => {
    expect((await server.api.patch('/api/v1/project', { welcomeBonus: 50 })).status).toBe(200);
    const first = await init(widgetHeader(signer, 'newbie', now(), { member: { name: 'New' } }));
    expect(first.status, first.text).toBe(200);
    expect(first.body.welcomeBonus).toBe(50);
    expect(first.body.member).toMatchObject({ points: 50, totalPointsEarned: 50 });
    const again = await init(widgetHeader(signer, 'newbie', now()));
    expect(again.body.welcomeBonus).toBe(0);
    expect(again.body.member.points).toBe(50);
    const rows = server.ctx.db.prepare(`SELECT t.amount, t.type, t.source, t.actor FROM transactions t JOIN members m ON m.id = t.member_id
      WHERE m.external_id = 'newbie'`).all();
    expect(rows).toEqual([{ amount: 50, type: 'EARNED', source: 'welcome', actor: 'widget' }]);

    // A running multiplier event shows in init and doubles a newcomer's welcome bonus.
    const at = server.clock.now().getTime();
    const multiplier = await server.api.post('/api/v1/multipliers', {
      name: 'Double weekend', multiplier: 2, startsAt: new Date(at - 60_000).toISOString(), endsAt: new Date(at + 3_600_000).toISOString(),
    });
    expect(multiplier.status, multiplier.text).toBe(201);
    const doubled = await init(widgetHeader(signer, 'newbie-2', now()));
    expect(doubled.body.welcomeBonus).toBe(100);
    expect(doubled.body.activeMultipliers).toEqual([{ name: 'Double weekend', multiplier: 2, endsAt: new Date(at + 3_600_000).toISOString(), sources: null }]);
    expect((await server.api.delete(`/api/v1/multipliers/${multiplier.body.id}`)).status).toBe(200);
    expect((await server.api.patch('/api/v1/project', { welcomeBonus: 0 })).status).toBe(200);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('refuses a feature the project turned off with 403 naming it, and sends the settings to the widget', async () => {
    const w = widgetClient(server.url, signer, 'toggles', server.clock.now);
    expect((await w.post('/init', {})).status).toBe(200);
    expect((await w.get('/history')).status).toBe(200);
    expect((await server.api.patch('/api/v1/project', { widget: { features: { points: false }, position: 'left', displayMode: 'custom' } })).status).toBe(200);
    const off = await w.get('/history');
    expect(off.status).toBe(403);
    expect(off.body.message).toMatch(/"points" feature is turned off/);
    const settings = (await w.post('/init', {})).body.project.widgetSettings;
    expect(settings).toMatchObject({ position: 'left', displayMode: 'custom', features: { points: false } });
    expect((await server.api.patch('/api/v1/project', { widget: { features: { points: true }, position: 'right', displayMode: 'floating' } })).status).toBe(200);
    expect((await w.get('/history')).status).toBe(200);
  });

  it("lets the project's allowed origins call the widget API, and any origin only with *", async () => {
    const w = widgetClient(server.url, signer, 'origins', server.clock.now);
    expect((await w.post('/init', {}, { origin: 'https://shop.example' })).status).toBe(403);
    expect((await server.api.patch('/api/v1/project', { widget: { allowedOrigins: ['https://shop.example'] } })).status).toBe(200);
    const allowed = await w.post('/init', {}, { origin: 'https://shop.example' });
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe('https://shop.example');
    expect((await w.post('/init', {}, { origin: 'https://other.example' })).status).toBe(403);
    expect((await server.api.patch('/api/v1/project', { widget: { allowedOrigins: ['*'] } })).status).toBe(200);
    const any = await w.post('/init', {}, { origin: 'https://other.example' });
    expect(any.status).toBe(200);
    expect(any.headers['access-control-allow-origin']).toBe('*');
    expect((await server.api.patch('/api/v1/project', { widget: { allowedOrigins: [] } })).status).toBe(200);
  });
});
