import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, request, type ApiResponse } from '../helpers/http.ts';
import { startTestServer, TestClock, type TestServer } from '../helpers/server.ts';
import { widgetClient } from '../helpers/widget.ts';

/**
 * No personal answer may be kept by a cache (a shared proxy's, a CDN's, the browser's disk): every
 * API answer says `Cache-Control: no-store`, errors included, and names the request headers it
 * depends on (`Vary`). Public assets keep their caching.
 */

const clock = new TestClock(new Date('2026-03-01T10:00:00.000Z'));
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock });
  expect((await server.api.post('/api/v1/members', { externalId: 'ada', email: 'ada@example.com' })).status).toBe(201);
  expect((await server.api.post('/api/v1/members/ada/points', { amount: 50 })).status).toBe(200);
});
afterAll(() => server.stop());

const varyOf = (res: ApiResponse) => String(res.headers.vary ?? '').split(',').map((name) => name.trim().toLowerCase());

describe('Cache-Control: no-store on every API answer', () => {
  it('server API: member, export, history, claims and the rest, with Vary on the key headers', async () => {
    for (const path of ['/members/ada', '/members/ada/export', '/members/ada/points?history=true', '/members/ada/claims', '/members/ada/rewards',
      '/members?search=ada', '/members/lookup?email=ada@example.com', '/project']) {
      const res = await server.api.get(`/api/v1${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers['cache-control'], path).toBe('no-store');
      expect(varyOf(res), path).toEqual(expect.arrayContaining(['authorization', 'x-api-key']));
    }
    const award = await server.api.post('/api/v1/members/ada/points', { amount: 1 });
    expect(award.headers['cache-control']).toBe('no-store');
  });

  it('widget API: init (which carries the session token), profile, history, claims, with Vary on Origin and the widget credentials', async () => {
    const shopper = widgetClient(server.url, { publicKey: server.publishableKey, widgetSecret: server.widgetSecret }, 'ada', clock.now);
    const origin = { origin: 'http://localhost:8080' };
    const init = await shopper.post('/init', {}, origin);
    expect(init.status).toBe(200);
    expect(init.body.session.token).toMatch(/^pcs_/);
    const answers = [init];
    for (const path of ['/profile', '/history', '/claims', '/rewards']) answers.push(await shopper.get(path, origin));
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.headers['cache-control']).toBe('no-store');
      expect(varyOf(res)).toEqual(expect.arrayContaining(['origin', 'authorization', 'x-widget-auth']));
    }
  });

  it('errors and the guest view too; public assets keep their caching', async () => {
    for (const res of [await request(server.url, 'GET', '/api/v1/members/ada'), await server.api.get('/api/v1/members/nobody'),
      await request(server.url, 'GET', '/api/widget/profile'), await request(server.url, 'GET', `/api/widget/guest?publicKey=${server.publishableKey}`)]) {
      expect(res.headers['cache-control'], `${res.status} ${res.text}`).toBe('no-store');
    }
    const favicon = await client(server.url).get('/favicon.svg');
    expect(favicon.headers['cache-control']).toBe('public, max-age=86400');
    const strings = await client(server.url).get('/widget/strings/en.json');
    expect(strings.headers['cache-control']).toBe('public, max-age=86400');
  });
});
