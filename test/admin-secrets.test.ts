import { H3 } from 'h3';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountSurfaces } from '../src/http/surface.ts';
import { type AdminBrowser, makeOperator } from './helpers/admin.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// No secret reaches the admin's browser but once, in the answer that creates it: not in a list,
// not in a replay, not in the audit log, for no role.

let server: TestServer;
let owner: AdminBrowser;
let staff: AdminBrowser;
let viewer: AdminBrowser;
const secrets: string[] = [];
const at = (rest: string) => `/api/admin/projects/${server.projectId}/${rest}`;

beforeAll(async () => {
  server = await startTestServer();
  owner = await makeOperator(server, 'owner@shop.example', 'owner');
  staff = await makeOperator(server, 'staff@shop.example', 'staff');
  viewer = await makeOperator(server, 'viewer@shop.example', 'viewer');
  secrets.push(server.secretKey, server.widgetSecret);
});
afterAll(() => server.stop());

describe('secrets in the admin', () => {
  it('shows a new secret key, webhook secret and invite link once, in the answer that creates it', async () => {
    const key = await owner.post(at('keys'), { type: 'secret', expiresInDays: 30 }, { headers: { 'idempotency-key': 'new-key-form' } });
    expect(key.status, key.text).toBe(201);
    expect(key.body.secret).toMatch(/^sk_live_\w{32}$/);
    expect(key.body.key).toMatchObject({ type: 'secret', prefix: key.body.secret.slice(0, 12), revokedAt: null, lastUsedAt: null });
    secrets.push(key.body.secret);
    // A double click does not make a second key, nor show the secret again.
    const again = await owner.post(at('keys'), { type: 'secret', expiresInDays: 30 }, { headers: { 'idempotency-key': 'new-key-form' } });
    expect(again.status).toBe(409);
    expect(again.body.message).toMatch(/answer held a secret, shown only that once/);
    expect(again.text).not.toContain(key.body.secret);

    const hook = await owner.post(at('webhooks'), { url: 'https://93.184.215.14/hooks', events: ['points.awarded'] });
    expect(hook.status, hook.text).toBe(201);
    expect(hook.body.secret).toMatch(/^whsec_/);
    secrets.push(hook.body.secret);

    const invited = await owner.post(at('operators'), { email: 'new@shop.example', role: 'viewer' });
    expect(invited.status, invited.text).toBe(201);
    expect(invited.body).toMatchObject({ operator: { email: 'new@shop.example', role: 'viewer', pending: true }, inviteUrl: expect.stringMatching(/\/admin\/invite\/[\w-]{43}$/) });
    secrets.push(invited.body.inviteUrl.split('/').at(-1));
    // Inviting someone who already has a password gives them the role, and no link that could set it.
    const existing = await owner.post(at('operators'), { email: 'staff@shop.example', role: 'viewer' });
    expect(existing.body.inviteUrl).toBeNull();

    // The API key works, and the admin shows when this server last saw it, never the key.
    expect((await server.api.get('/api/v1/project', { key: key.body.secret })).status).toBe(200);
    const listed = await owner.get(at('keys'));
    expect(listed.body.keys.find((one: { id: string }) => one.id === key.body.key.id).lastUsedAt).toBe(server.clock.now().toISOString());
  });

  it('keeps every secret out of every other answer, for every role', async () => {
    const enrolled = await owner.post('me/totp');
    const totp = enrolled.body.secret as string;
    expect((await owner.post('me/totp/confirm', { code: TOTP.generate({ secret: Secret.fromBase32(totp), timestamp: server.clock.now().getTime() }) })).status).toBe(200);
    secrets.push(totp, ...owner.cookies.values()); // the CSRF token is the page's to read (GET /session): not a secret kept from it
    expect((await server.api.post('/api/v1/members', { externalId: 'm1' })).status).toBe(201);
    const webhookId = (await owner.get(at('webhooks'))).body.webhooks[0].id;
    const ids: Record<string, string> = { externalId: 'm1', webhookId, projectId: server.projectId, id: 'nothing-here', claimId: 'nothing-here',
      rewardId: 'nothing-here', deliveryId: 'nothing-here', keyId: 'nothing-here', operatorId: 'nothing-here', token: 'nothing-here' };
    const reads = mountSurfaces(new H3(), server.ctx).filter((route) => route.path.startsWith('/api/admin') && route.method === 'GET');
    let read = 0;
    for (const route of reads) {
      const path = route.path.replace(/:(\w+)/g, (_match, name: string) => ids[name]!);
      for (const browser of [owner, staff, viewer]) {
        for (const suffix of route.csv ? ['', '?format=csv'] : ['']) {
          const res = await browser.get(`${path}${suffix}`);
          expect(res.status).toBeLessThan(500);
          if (res.status === 200) read++;
          for (const secret of secrets) expect(res.text, `${route.path}${suffix}`).not.toContain(secret);
          // Nothing sealed or hashed leaves either.
          expect(res.text).not.toMatch(/scrypt\$|"v1\.[\w-]+\.[\w-]+\./);
        }
      }
    }
    expect(read).toBeGreaterThan(60);
    const audit = server.ctx.db.prepare('SELECT * FROM audit_log').all();
    for (const secret of secrets) expect(JSON.stringify(audit)).not.toContain(secret);
  });
});
