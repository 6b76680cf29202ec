import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer } from '../../src/server.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, tableCounts, TEST_MASTER_KEY, type TestServer } from '../helpers/server.ts';
import { widgetHeader, type WidgetSigner } from '../helpers/widget.ts';

// An attacker against the demo page and the widget API of a live server: a shopper with a valid
// signature for themself, a stranger on the demo page, a page on a foreign origin.

let server: TestServer;
let shop: WidgetSigner;
const anon = () => client(server.url);
const init = (header: string, headers: Record<string, string> = {}) => anon().post('/api/widget/init', {}, { headers: { 'x-widget-auth': header, ...headers } });

beforeAll(async () => {
  server = await startTestServer({ demo: true });
  shop = { publicKey: server.publishableKey, widgetSecret: server.widgetSecret };
  // The real shop (Default project) has a welcome bonus and a reward worth taking.
  expect((await server.api.patch('/api/v1/project', { welcomeBonus: 500 })).status).toBe(200);
  expect((await server.api.post('/api/v1/rewards', { name: 'Gift card', type: 'CUSTOM', pointsCost: 100 })).status).toBe(201);
});
afterAll(() => server.stop());

describe('the demo page', () => {
  it('is not served unless the server runs with --demo, not even on loopback', async () => {
    const plain = await startServer({ db: `${server.dir}/plain.db`, port: 0, host: '127.0.0.1', logLevel: 'silent', scheduler: false, masterKey: TEST_MASTER_KEY });
    try {
      expect((await client(plain.url).get('/demo')).status).toBe(404);
    } finally {
      await plain.close();
    }
  });

  it('with --demo, refuses to start on a database without the demo project rather than use a real one', async () => {
    const db = `${server.dir}/real-only.db`;
    const real = await startServer({ db, port: 0, host: '127.0.0.1', logLevel: 'silent', scheduler: false, masterKey: TEST_MASTER_KEY });
    await real.close();
    await expect(startServer({ db, port: 0, host: '127.0.0.1', logLevel: 'silent', scheduler: false, masterKey: TEST_MASTER_KEY, demo: true }))
      .rejects.toThrow(/this database has none\. Create it with "punchcard seed --demo"/);
  });

  it('signs only demo members of the demo project: its signature never reaches the real shop', async () => {
    const before = tableCounts(server);
    const page = await anon().get('/demo?member=shopper');
    expect(page.status).toBe(200);
    const config = JSON.parse(/Object\.assign\((\{.*?\}), \{/s.exec(page.text)![1]!) as Record<string, unknown>;
    expect(config.publicKey).toBe(server.demoProject!.publishableKey);
    expect(config.publicKey).not.toBe(server.publishableKey);
    const header = (claims: Record<string, unknown>) => Buffer.from(JSON.stringify(claims)).toString('base64');

    // Swapping in the real shop's (public) publishable key breaks the signature.
    const swapped = await init(header({ ...config, publicKey: server.publishableKey }));
    expect(swapped.status).toBe(401);
    expect(swapped.body.message).toMatch(/signature does not match/);

    // As signed, it opens the demo member in the demo project only.
    const demoInit = await init(header(config));
    expect(demoInit.status, demoInit.text).toBe(200);
    expect(demoInit.body.project.name).toBe('Demo shop');
    expect(demoInit.body.member.externalId).toBe('demo-shopper');
    const realDemoMembers = server.ctx.db.prepare("SELECT count(*) FROM members WHERE project_id = ? AND external_id LIKE 'demo-%'").pluck().get(server.projectId);
    expect(realDemoMembers).toBe(0);
    const real = (await server.api.get('/api/v1/members/demo-shopper'));
    expect(real.status).toBe(404);
    expect(tableCounts(server).transactions).toBe(before.transactions);
  });
});

describe('profile fields in X-Widget-Auth', () => {
  it('are ignored unless the signature covers them: a shopper cannot take another\'s email', async () => {
    expect((await server.api.post('/api/v1/members', { externalId: 'victim', email: 'victim@example.com' })).status).toBe(201);
    expect((await server.api.post('/api/v1/members', { externalId: 'mallory', email: 'mallory@example.com', name: 'Mallory' })).status).toBe(201);
    const now = server.clock.now().getTime();
    // Mallory's own valid signature, with profile fields the page added beside it.
    const forged = await init(widgetHeader(shop, 'mallory', now, { unsignedMember: { email: 'victim@example.com', name: 'Victim', phone: '+100', dateOfBirth: '1990-01-01' } }));
    expect(forged.status, forged.text).toBe(200);
    expect(forged.body.member).toMatchObject({ email: 'mallory@example.com', name: 'Mallory' });
    const profile = (externalId: string) => server.ctx.db.prepare('SELECT email, name, phone, date_of_birth FROM members WHERE project_id = ? AND external_id = ?')
      .get(server.projectId, externalId);
    expect(profile('mallory')).toEqual({ email: 'mallory@example.com', name: 'Mallory', phone: null, date_of_birth: null });

    // A new member created with unsigned fields gets none of them.
    const fresh = await init(widgetHeader(shop, 'fresh', now, { unsignedMember: { email: 'victim@example.com' } }));
    expect(fresh.body.member.email).toBeNull();

    // Signed text that was changed after signing is refused.
    const signed = JSON.parse(Buffer.from(widgetHeader(shop, 'mallory', now, { member: { name: 'Mal' } }), 'base64').toString()) as Record<string, unknown>;
    const tampered = Buffer.from(JSON.stringify({ ...signed, member: JSON.stringify({ name: 'Mal', email: 'victim@example.com' }) })).toString('base64');
    const refused = await init(tampered);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/sign "publicKey:externalId:timestamp:member"/);

    // Signed by the shop, they apply.
    const applied = await init(widgetHeader(shop, 'mallory', now, { member: { name: 'Mal', phone: '+33 1 23' } }));
    expect(applied.body.member).toMatchObject({ name: 'Mal', email: 'mallory@example.com' });
    expect(profile('mallory')).toEqual({ email: 'mallory@example.com', name: 'Mal', phone: '+33 1 23', date_of_birth: null });
    expect((await server.api.get('/api/v1/members/victim')).body.email).toBe('victim@example.com');
  });
});

describe('allowed origins', () => {
  it('refuse a foreign origin before any work, readably (origin_not_allowed naming the fix); loopback is always allowed', async () => {
    const signer = shop;
    const header = () => widgetHeader(signer, 'origin-probe', server.clock.now().getTime());
    const before = tableCounts(server);
    for (const origin of ['https://evil.example', 'http://localhost.evil.example', 'http://127.0.0.1.evil.example', 'null', 'https://shop.example.evil.example']) {
      const res = await init(header(), { origin });
      expect(res.status, origin).toBe(403);
      expect(res.body.error).toBe('origin_not_allowed');
      expect(res.body.message).toContain(`The widget may not run on ${origin}`);
      expect(res.body.message).toContain(`punchcard project set --project ${server.projectId} --allow-origin ${origin}`);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
    }
    expect(tableCounts(server)).toEqual(before);

    // A shop's development copy works without configuration.
    for (const origin of ['http://localhost:5173', 'http://127.0.0.1:8080', 'http://[::1]:3000', 'https://localhost']) {
      const res = await init(header(), { origin });
      expect(res.status, origin).toBe(200);
      expect(res.headers['access-control-allow-origin']).toBe(origin);
    }
  });
});

describe('widget timestamps', () => {
  it('in seconds are answered with the unit expected and the server\'s time', async () => {
    const now = server.clock.now();
    const seconds = Math.floor(now.getTime() / 1000);
    const res = await init(widgetHeader(shop, 'clock-user', seconds));
    expect(res.status).toBe(401);
    expect(res.body.message).toBe(`The timestamp ${seconds} looks like seconds; it must be milliseconds since 1970 (Date.now() in JavaScript, time() * 1000 elsewhere). `
      + `The server's time is ${now.getTime()} ms (${now.toISOString()}).`);
  });
});
