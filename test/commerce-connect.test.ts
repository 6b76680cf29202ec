import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectionFailed } from '../src/integrations/commerce/connect.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServer } from './helpers/cli.ts';
import { client, request, type ApiResponse } from './helpers/http.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from './helpers/fake-woocommerce.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
let store: FakeWooCommerce;

beforeAll(async () => {
  server = await startTestServer();
  store = await startFakeWooCommerce();
});
afterAll(async () => {
  await server.stop();
  await store.stop();
});
afterEach(async () => {
  store.down = false;
  await server.api.delete('/api/commerce/connect');
});

const connectBody = () => ({ siteUrl: store.url, consumerKey: store.consumerKey, consumerSecret: store.consumerSecret, organizationId: 'org_1' });

describe('POST /api/commerce/connect', () => {
  it('checks the credentials, registers three signed webhooks pointing at this server, and answers the store without secrets', async () => {
    const res = await server.api.post('/api/commerce/connect', connectBody());
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^store_/), siteUrl: store.url, organizationId: 'org_1', createdAt: expect.any(String),
      webhooks: [{ id: expect.any(Number), topic: 'order.updated' }, { id: expect.any(Number), topic: 'customer.created' }, { id: expect.any(Number), topic: 'customer.updated' }],
    });
    expect(res.text).not.toContain(store.consumerSecret);
    expect(res.text).not.toContain(store.consumerKey);

    expect(store.calls.every((call) => call.authorized)).toBe(true);
    const hooks = [...store.webhooks.values()];
    expect(hooks.map((hook) => hook.topic).sort()).toEqual(['customer.created', 'customer.updated', 'order.updated']);
    for (const hook of hooks) {
      expect(hook.delivery_url).toBe(`${server.url}/api/commerce/webhooks/${res.body.id}`);
      expect(hook.secret).toMatch(/^[A-Za-z0-9]{40}$/);
      expect(hook.status).toBe('active');
      expect(store.pings.get(hook.id)).toBe(200); // WooCommerce's ping on creation was answered 200
    }
    expect(new Set(hooks.map((hook) => hook.secret)).size).toBe(1);

    // Stored encrypted: neither the key, the secret nor the webhook secret is in the row as text.
    const row = server.ctx.db.prepare('SELECT * FROM commerce_stores WHERE id = ?').get(res.body.id) as Record<string, string>;
    const raw = JSON.stringify(row);
    for (const secret of [store.consumerKey, store.consumerSecret, hooks[0]!.secret]) expect(raw).not.toContain(secret);
  });

  it('reconnecting the same site replaces its webhooks and answers 200 with the same id; another site is a 409', async () => {
    const first = await server.api.post('/api/commerce/connect', connectBody());
    const oldHooks = [...store.webhooks.keys()];
    const again = await server.api.post('/api/commerce/connect', { ...connectBody(), siteUrl: `${store.url}/`, organizationId: 'org_2' });
    expect(again.status, again.text).toBe(200);
    expect(again.body).toMatchObject({ id: first.body.id, siteUrl: store.url, organizationId: 'org_2', createdAt: first.body.createdAt });
    expect([...store.webhooks.keys()].some((id) => oldHooks.includes(id))).toBe(false);
    expect(store.webhooks.size).toBe(3);
    expect(again.body.webhooks.map((hook: { id: number }) => hook.id).sort()).toEqual([...store.webhooks.keys()].sort());
    // organizationId is a label of the caller's: without one, the store is labelled with the project's id.
    const { organizationId: _label, ...unlabelled } = connectBody();
    expect((await server.api.post('/api/commerce/connect', unlabelled)).body).toMatchObject({ id: first.body.id, organizationId: server.projectId });

    const other = await server.api.post('/api/commerce/connect', { ...connectBody(), siteUrl: 'http://127.0.0.2:9/shop' });
    expect(other.status).toBe(409);
    expect(other.body).toEqual({ error: 'Conflict', message: expect.stringContaining(store.url) });
  });

  it('answers one 400 store_connection_failed for every way the check fails, keeps nothing, and logs the cause for the operator', async () => {
    const logged: string[] = [];
    const spy = vi.spyOn(server.ctx.log, 'warn').mockImplementation((message: string) => { logged.push(message); });
    // An address that refuses connections: a port that was just free.
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const cases: [string, string, () => Promise<ApiResponse>][] = [
      ['a wrong key', store.url, () => server.api.post('/api/commerce/connect', { ...connectBody(), consumerSecret: 'cs_wrong' })],
      ['a store that is down', store.url, async () => {
        store.goDown();
        return server.api.post('/api/commerce/connect', connectBody());
      }],
      ['a redirect to an internal address', store.url, async () => {
        store.down = false;
        store.redirectTo = 'http://10.0.0.7:8080/admin?token=internal-secret';
        try {
          return await server.api.post('/api/commerce/connect', connectBody());
        } finally {
          store.redirectTo = null;
        }
      }],
      ['no WooCommerce there', `${server.url}/nothing-here`, () => server.api.post('/api/commerce/connect', { ...connectBody(), siteUrl: `${server.url}/nothing-here` })],
      ['a closed port', `http://127.0.0.1:${closed}`, () => server.api.post('/api/commerce/connect', { ...connectBody(), siteUrl: `http://127.0.0.1:${closed}` })],
    ];
    try {
      for (const [what, siteUrl, attempt] of cases) {
        const before = store.webhooks.size;
        const res = await attempt();
        expect(res.status, what).toBe(400);
        expect(res.body, what).toEqual({ error: 'store_connection_failed', message: connectionFailed(siteUrl).message });
        expect(res.text, what).not.toMatch(/HTTP|ECONN|10\.0\.0\.7|internal-secret|refused|timeout/);
        expect(store.webhooks.size, what).toBe(before);
        expect(server.ctx.db.prepare('SELECT count(*) AS n FROM commerce_stores WHERE deleted_at IS NULL').get(), what).toEqual({ n: 0 });
      }
    } finally {
      spy.mockRestore();
    }
    // The operator's log tells them apart, without repeating what the store sent (a redirect's address).
    expect(logged).toEqual([
      expect.stringMatching(/refused the consumer key.*HTTP 401/), expect.stringContaining('could not be reached'),
      expect.stringMatching(/redirects GET \/webhooks\?per_page=1 \(HTTP 301\)/), expect.stringContaining('No WooCommerce REST API answered'),
      expect.stringContaining('ECONNREFUSED'),
    ]);
    expect(logged.join('\n')).not.toMatch(/10\.0\.0\.7|internal-secret/);
  });

  it('refuses plain http to a host that is not loopback, even with --allow-insecure-stores', async () => {
    const res = await server.api.post('/api/commerce/connect', { ...connectBody(), siteUrl: 'http://shop.example.com' });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Bad Request', message: expect.stringMatching(/"siteUrl" must be an https URL/) });
  });

  it('needs a secret key', async () => {
    expect((await request(server.url, 'POST', '/api/commerce/connect', { body: connectBody() })).status).toBe(401);
    expect((await request(server.url, 'POST', '/api/commerce/connect', { body: connectBody(), key: server.publishableKey })).status).toBe(403);
    expect((await request(server.url, 'GET', '/api/commerce/stores/store_x/settings', { key: server.publishableKey })).status).toBe(403);
  });
});

describe('DELETE /api/commerce/connect', () => {
  it('removes the webhooks it registered and the store; then 404', async () => {
    const connected = await server.api.post('/api/commerce/connect', connectBody());
    const res = await server.api.delete('/api/commerce/connect');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id: connected.body.id, deleted: true });
    expect(store.webhooks.size).toBe(0);
    expect((await server.api.delete('/api/commerce/connect')).status).toBe(404);
    expect((await server.api.get(`/api/commerce/stores/${connected.body.id}/settings`)).status).toBe(404);
    // Reconnecting the same site is a new connection (201) of the same store, whose orders are remembered.
    const back = await server.api.post('/api/commerce/connect', connectBody());
    expect(back.status).toBe(201);
    expect(back.body.id).toBe(connected.body.id);
  });
});

describe('DELETE /api/commerce/connect with the store down', () => {
  it('still disconnects: the store keeps its webhooks until it disables them, and their deliveries answer 404', async () => {
    const connected = await server.api.post('/api/commerce/connect', connectBody());
    store.goDown();
    const res = await server.api.delete('/api/commerce/connect');
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ id: connected.body.id, deleted: true });
    store.down = false;
    expect(store.webhooks.size).toBe(3);
    const delivered = await store.deliverOne('customer.created', { id: 5, email: 'x@shop.example' });
    expect(delivered.status).toBe(404);
    store.webhooks.clear();
  });
});

describe('GET/PATCH /api/commerce/stores/{id}/settings', () => {
  it('has every setting with its default, changes the given ones, and validates', async () => {
    const { body: connected } = await server.api.post('/api/commerce/connect', connectBody());
    const path = `/api/commerce/stores/${connected.id}/settings`;
    const defaults = {
      pointsPerDollar: 1, rounding: 'FLOOR', minOrderAmount: null, excludeShipping: true, excludeTax: true, excludeGuest: true,
      pointsOnStatus: 'completed', showInAccount: true, productOverrides: {}, memberIdentifier: 'customerId',
    };
    expect((await server.api.get(path)).body).toEqual({ storeId: connected.id, settings: defaults });

    const patched = await server.api.patch(path, { pointsPerDollar: 2.5, rounding: 'CEIL', productOverrides: { 42: { multiplier: 2 } }, minOrderAmount: 10 });
    expect(patched.status, patched.text).toBe(200);
    const changed = { ...defaults, pointsPerDollar: 2.5, rounding: 'CEIL', productOverrides: { 42: { multiplier: 2 } }, minOrderAmount: 10 };
    expect(patched.body).toEqual({ storeId: connected.id, settings: changed });
    expect((await server.api.patch(path, { excludeTax: false })).body.settings).toEqual({ ...changed, excludeTax: false });

    const bad: [unknown, RegExp][] = [
      [{}, /must change at least one of pointsPerDollar/],
      [{ rounding: 'UP' }, /"rounding" must be one of FLOOR, ROUND, CEIL/],
      [{ pointsPerDollar: -1 }, /"pointsPerDollar" must be at least 0/],
      [{ pointsPerDollar: 0.0001 }, /"pointsPerDollar" must have at most 3 decimals/],
      [{ pointsOnStatus: 'on-hold' }, /"pointsOnStatus" must be one of completed, processing/],
      [{ productOverrides: { abc: { multiplier: 2 } } }, /must be a WooCommerce product id/],
      [{ productOverrides: { 7: { multiplier: 'x' } } }, /"productOverrides\.7\.multiplier" must be a number/],
      [{ memberIdentifier: 'phone' }, /"memberIdentifier" must be one of customerId, email/],
      [{ minOrderAmount: 1.234 }, /"minOrderAmount" must have at most 2 decimals/],
      [{ secret: 'x' }, /Unknown field "secret"/],
    ];
    for (const [body, message] of bad) {
      const res = await server.api.patch(path, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await server.api.get(path)).body.settings).toEqual({ ...changed, excludeTax: false });
    expect((await server.api.get('/api/commerce/stores/store_nope/settings')).status).toBe(404);
  });
});

describe('serve --allow-insecure-stores', () => {
  it('is off by default: a plain-http store is refused; the flag allows it on loopback', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'punchcard-stores-'));
    try {
      for (const [args, expected] of [[[], 400], [['--allow-insecure-stores'], 201]] as const) {
        const spawned = await spawnServer(join(dir, `${args.length}.db`), [...args], { PUNCHCARD_ALLOW_INSECURE_STORES: '' });
        try {
          const api = client(spawned.url, /secret key\s+(sk_live_\w+)/.exec(spawned.output())![1]);
          const res = await api.post('/api/commerce/connect', connectBody());
          expect(res.status, res.text).toBe(expected);
          if (expected === 400) expect(res.body.message).toMatch(/"siteUrl" must be an https URL/);
          else expect((await api.delete('/api/commerce/connect')).status).toBe(200);
        } finally {
          spawned.child.kill('SIGTERM');
          await new Promise((resolve) => spawned.child.once('exit', resolve));
        }
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
