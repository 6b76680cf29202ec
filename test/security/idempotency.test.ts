import { createHmac } from 'node:crypto';
import { H3 } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountSurfaces } from '../../src/http/surface.ts';
import { configureCommunity, GUILD } from '../helpers/community.ts';
import { request } from '../helpers/http.ts';
import { startTestServer, TestClock, type TestServer } from '../helpers/server.ts';
import { widgetClient } from '../helpers/widget.ts';

/**
 * Idempotency-Key as an attacker uses it: to skip authentication (a stored answer replayed before
 * the signature is checked), to smuggle another body under a used key, to learn which keys a shop
 * used, to collide with another surface's keys, and to slip one request past as two by spelling
 * its path differently.
 */

const clock = new TestClock(new Date('2026-03-01T10:00:00.000Z'));
let server: TestServer;
let secret: string;

beforeAll(async () => {
  server = await startTestServer({ clock, guard: {} });
  secret = await configureCommunity(server);
});
afterAll(() => server.stop());

const event = (eventId: string) => JSON.stringify({ eventId, eventType: 'MEMBER_JOIN', communityUserId: `user-${eventId}` });

/** A bot's delivery with an Idempotency-Key; `signature: null` sends none, a string sends that one. */
function deliver(raw: string, key: string, signature?: string | null) {
  const sign = signature === undefined ? createHmac('sha256', secret).update(raw).digest('hex') : signature;
  return request(server.url, 'POST', '/api/v1/community/events', {
    raw,
    headers: {
      'content-type': 'application/json', 'x-community-guild-id': GUILD, 'x-community-timestamp': String(Math.floor(clock.now().getTime() / 1000)),
      'idempotency-key': key, ...(sign === null ? {} : { 'x-community-signature': sign }),
    },
  });
}

describe('idempotency cannot bypass authentication: POST /api/v1/community/events', () => {
  it('a used key never answers without the signature: unsigned and wrongly signed requests get 401, used key or not', async () => {
    const first = await deliver(event('e1'), 'bot-key-1');
    expect(first.status, first.text).toBe(200);
    for (const signature of [null, 'f'.repeat(64)]) {
      const used = await deliver(event('e1'), 'bot-key-1', signature);
      const unused = await deliver(event('e1'), 'bot-key-never-used', signature);
      expect(used.status).toBe(401);
      expect(used.headers['idempotent-replayed']).toBeUndefined();
      // Nothing tells a used key from an unused one.
      expect({ status: used.status, body: used.body }).toEqual({ status: unused.status, body: unused.body });
    }
    const replay = await deliver(event('e1'), 'bot-key-1');
    expect(replay.status).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toEqual(first.body);
  });

  it('a different body under a used key is 409, not silently dropped', async () => {
    expect((await deliver(event('e2'), 'bot-key-2')).status).toBe(200);
    const other = await deliver(event('e3'), 'bot-key-2');
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('Conflict');
    // The same JSON spelled with other bytes is another request too: the signature covers the bytes.
    expect((await deliver(` ${event('e2')}`, 'bot-key-2')).status).toBe(409);
  });

  it('keeps each surface\'s keys apart: the bot\'s, the server API\'s and a shopper\'s never meet', async () => {
    expect((await deliver(event('e4'), 'shared-key')).status).toBe(200);
    const member = await server.api.post('/api/v1/members', { externalId: 'shared-key-member' }, { headers: { 'idempotency-key': 'shared-key' } });
    expect(member.status, member.text).toBe(201);
    expect(member.headers['idempotent-replayed']).toBeUndefined();
    const shopper = widgetClient(server.url, { publicKey: server.publishableKey, widgetSecret: server.widgetSecret }, 'shared-key-member', clock.now);
    const profile = await shopper.patch('/profile', { name: 'Ada' }, { 'idempotency-key': 'shared-key' });
    expect(profile.status, profile.text).toBe(200);
    // And each replays its own answer.
    expect((await deliver(event('e4'), 'shared-key')).headers['idempotent-replayed']).toBe('true');
    const again = await server.api.post('/api/v1/members', { externalId: 'shared-key-member' }, { headers: { 'idempotency-key': 'shared-key' } });
    expect([again.status, again.headers['idempotent-replayed']]).toEqual([201, 'true']);
  });
});

describe('on every surface', () => {
  it('a request that is not authenticated gets its 401 whatever keys exist, on every route that takes a key', async () => {
    // Raised failure limits: this sweeps every route once, without credentials.
    const sweep = await startTestServer();
    try {
      expect((await sweep.api.post('/api/v1/members', { externalId: 'key-owner' }, { headers: { 'idempotency-key': 'used-key' } })).status).toBe(201);
      const table = mountSurfaces(new H3(), sweep.ctx).filter((route) => route.changes);
      expect(table.length).toBeGreaterThan(40);
      for (const route of table) {
        const res = await request(sweep.url, route.method, route.path.replace(/:\w+/g, 'x'), {
          raw: '{"externalId":"key-owner"}', headers: { 'content-type': 'application/json', 'idempotency-key': 'used-key' },
        });
        const name = `${route.method} ${route.path}`;
        expect(res.headers['idempotent-replayed'], name).toBeUndefined();
        // Store deliveries take no key at all (deduplicated by order); the admin refuses a change from
        // no page of its own (no Origin) before anything else; everything else asks who is calling.
        const expected = route.surface === 'commerce deliveries' ? 400 : route.surface.startsWith('admin') ? 403 : 401;
        expect(res.status, `${name}: ${res.text}`).toBe(expected);
      }
    } finally {
      await sweep.stop();
    }
  });
});

describe('an idempotent retry is the same request whatever the percent-encoding of its path', () => {
  beforeAll(async () => {
    for (const externalId of ['café', 'a/b']) expect((await server.api.post('/api/v1/members', { externalId })).status).toBe(201);
  });

  const award = (path: string, key: string) => fetch(`${server.url}/api/v1/members/${path}/points`, {
    method: 'POST', body: JSON.stringify({ amount: 5 }),
    headers: { authorization: `Bearer ${server.secretKey}`, 'content-type': 'application/json', 'idempotency-key': key },
  });

  it.each([
    ['caf%C3%A9', ['caf%c3%a9', 'café', 'caf%C3%A9'], 'café'],
    ['a%2Fb', ['a%2fb', 'a%2Fb'], 'a/b'],
  ])('%s', async (first, retries, externalId) => {
    const key = `path-${first}`;
    const original = await award(first, key);
    expect(original.status).toBe(200);
    const body = await original.json();
    for (const path of retries) {
      const retry = await award(path, key);
      expect(retry.status, path).toBe(200);
      expect(retry.headers.get('idempotent-replayed'), path).toBe('true');
      expect(await retry.json()).toEqual(body);
    }
    const member = await server.api.get(`/api/v1/members/${encodeURIComponent(externalId)}`);
    expect(member.body.points).toBe(5); // paid once
  });

  it('another member under the same key is still another request (409)', async () => {
    expect((await award('a', 'path-caf%C3%A9')).status).toBe(409);
  });
});
