import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey, revokeKey } from '../src/domain/project/api-keys.ts';
import { rotateWidgetSecret } from '../src/domain/project/projects.ts';
import { client } from './helpers/http.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';
import { widgetHeader, type WidgetSigner } from './helpers/widget.ts';

// Item 1 of issue 25: the signed header is an entry ticket; init hands out a session that lasts.

let server: TestServer;
let signer: WidgetSigner;
let anon: ReturnType<typeof client>;
const ORIGIN = 'http://localhost:5173';

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-03-01T10:00:00Z')) });
  signer = { publicKey: server.publishableKey, widgetSecret: server.widgetSecret };
  anon = client(server.url);
});
afterAll(() => server.stop());

const HOUR = 3_600_000;
const start = async (externalId: string) => {
  const res = await anon.post('/api/widget/init', {}, { headers: { 'x-widget-auth': widgetHeader(signer, externalId, server.clock.now().getTime()) } });
  expect(res.status, res.text).toBe(200);
  return res.body.session as { token: string; expiresAt: string };
};
const withSession = (token: string) => ({ headers: { authorization: `Bearer ${token}`, origin: ORIGIN } });

describe('widget sessions', () => {
  it('init exchanges the ticket for a 12-hour session that outlives the 5-minute ticket', async () => {
    const ticket = widgetHeader(signer, 'sess-ada', server.clock.now().getTime());
    const first = await anon.post('/api/widget/init', {}, { headers: { 'x-widget-auth': ticket } });
    expect(first.body.session.token).toMatch(/^pcs_[\w-]+\.[\w-]+$/);
    expect(first.body.session.expiresAt).toBe(new Date(server.clock.now().getTime() + 12 * HOUR).toISOString());
    const { token } = first.body.session;

    server.clock.advance(6 * 60_000);
    expect((await anon.get('/api/widget/profile', { headers: { 'x-widget-auth': ticket } })).status).toBe(401);
    const profile = await anon.get('/api/widget/profile', withSession(token));
    expect(profile.status, profile.text).toBe(200);
    expect(profile.body.externalId).toBe('sess-ada');
    // init with a session answers without handing out another one.
    const again = await anon.post('/api/widget/init', {}, withSession(token));
    expect(again.status).toBe(200);
    expect(again.body.session).toBeUndefined();

    server.clock.advance(12 * HOUR);
    const expired = await anon.get('/api/widget/profile', withSession(token));
    expect(expired.status).toBe(401);
    expect(expired.body.error).toBe('session_expired');
    expect(expired.body.message).toMatch(/expired at/);
    // Across origins the 401 is readable: the widget tells "expired" from "offline".
    expect(expired.headers['access-control-allow-origin']).toBe(ORIGIN);
  });

  it('the lifetime is a project setting', async () => {
    expect((await server.api.patch('/api/v1/project', { widget: { sessionHours: 24 } })).status).toBe(200);
    const session = await start('sess-long');
    expect(Date.parse(session.expiresAt) - server.clock.now().getTime()).toBe(24 * HOUR);
    server.clock.advance(23 * HOUR);
    expect((await anon.get('/api/widget/profile', withSession(session.token))).status).toBe(200);
    const bad = await server.api.patch('/api/v1/project', { widget: { sessionHours: 0 } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/sessionHours/);
    expect((await server.api.patch('/api/v1/project', { widget: { sessionHours: 12 } })).status).toBe(200);
  });

  it('erasing the member ends their sessions; a new member with the same id needs a new session', async () => {
    const session = await start('sess-erase');
    expect((await server.api.delete('/api/v1/members/sess-erase')).status).toBe(200);
    const res = await anon.get('/api/widget/profile', withSession(session.token));
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/no longer exists/);
    await start('sess-erase');
    expect((await anon.get('/api/widget/profile', withSession(session.token))).status).toBe(401);
  });

  it('revoking the publishable key ends the sessions started with it', async () => {
    const key = issueKey(server.ctx.db, { projectId: server.projectId, type: 'publishable' }, server.clock.now());
    const ticket = widgetHeader({ ...signer, publicKey: key.key }, 'sess-key', server.clock.now().getTime());
    const { token } = (await anon.post('/api/widget/init', {}, { headers: { 'x-widget-auth': ticket } })).body.session;
    expect((await anon.get('/api/widget/profile', withSession(token))).status).toBe(200);
    revokeKey(server.ctx.db, key.id, server.clock.now());
    const res = await anon.get('/api/widget/profile', withSession(token));
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/revoked/);
  });

  it('rotating the widget secret ends every session of the project', async () => {
    const session = await start('sess-rotate');
    expect((await anon.get('/api/widget/profile', withSession(session.token))).status).toBe(200);
    const fresh = rotateWidgetSecret(server.ctx.db, server.ctx.box, server.projectId);
    signer = { ...signer, widgetSecret: fresh };
    const res = await anon.get('/api/widget/profile', withSession(session.token));
    expect(res.status).toBe(401);
    expect(res.body.message).toMatch(/rotated/);
    const renewed = await start('sess-rotate');
    expect((await anon.get('/api/widget/profile', withSession(renewed.token))).status).toBe(200);
  });
});

describe('widget session limits', () => {
  it('session calls count against the member\'s rate limit', async () => {
    const limited = await startTestServer({ clock: new TestClock(new Date('2026-03-01T10:00:00Z')), guard: { rateLimits: { member: '3/min' } } });
    try {
      const api = client(limited.url);
      const ticket = widgetHeader({ publicKey: limited.publishableKey, widgetSecret: limited.widgetSecret }, 'sess-busy', limited.clock.now().getTime());
      const { token } = (await api.post('/api/widget/init', {}, { headers: { 'x-widget-auth': ticket } })).body.session;
      const statuses = [];
      for (let i = 0; i < 3; i++) statuses.push((await api.get('/api/widget/profile', withSession(token))).status);
      expect(statuses).toEqual([200, 200, 429]);
      const limitedRes = await api.get('/api/widget/profile', withSession(token));
      expect(Number(limitedRes.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.stop();
    }
  });
});
