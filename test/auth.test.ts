import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey, revokeKey } from '../src/domain/project/api-keys.ts';
import { randomBase62 } from '../src/shared/ids.ts';
import { request, type ApiResponse } from './helpers/http.ts';
import { startTestServer, tableCounts, type TestServer } from './helpers/server.ts';

const HOUR_MS = 60 * 60 * 1000;

let server: TestServer;
let publishableKey: string;

beforeAll(async () => {
  server = await startTestServer();
  publishableKey = issueKey(server.ctx.db, { projectId: server.projectId, type: 'publishable' }, server.clock.now()).key;
  expect((await server.api.post('/api/v1/members', { externalId: 'alice' })).status).toBe(201);
});
afterAll(() => server.stop());

/** One request to every server API route, each with the given headers and no other credentials. */
const routes: [method: string, path: string, body?: unknown][] = [
  ['GET', '/api/v1/members'],
  ['POST', '/api/v1/members', { externalId: 'mallory' }],
  ['GET', '/api/v1/members/lookup?externalId=alice'],
  ['GET', '/api/v1/members/lookup/export?externalId=alice'],
  ['DELETE', '/api/v1/members/lookup?externalId=alice'],
  ['GET', '/api/v1/members/alice'],
  ['PATCH', '/api/v1/members/alice', { name: 'Mallory' }],
  ['DELETE', '/api/v1/members/alice'],
  ['GET', '/api/v1/members/alice/export'],
  ['POST', '/api/v1/members/alice/points', { amount: 1000 }],
  ['GET', '/api/v1/members/alice/points'],
];

const send = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
  request(server.url, method, path, { ...(body === undefined ? {} : { body }), headers });

/** The error body is exactly {error, message}, sent as JSON. */
function expectError(res: ApiResponse, status: number, error: string, message?: RegExp | string) {
  expect(res.status).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  expect(Object.keys(res.body).sort()).toEqual(['error', 'message']);
  expect(res.body.error).toBe(error);
  expect(typeof res.body.message).toBe('string');
  expect(res.body.message.length).toBeGreaterThan(0);
  if (message) expect(res.body.message).toMatch(message);
}

/** Every route answers the same error for these headers, and nothing is written. */
async function expectEveryRoute(headers: Record<string, string>, status: number, error: string, message?: RegExp) {
  const before = tableCounts(server);
  for (const [method, path, body] of routes) {
    const res = await send(method, path, body, headers);
    try {
      expectError(res, status, error, message);
    } catch (failure) {
      throw new Error(`${method} ${path}: ${(failure as Error).message}`);
    }
  }
  expect(tableCounts(server)).toEqual(before);
  const alice = await server.api.get('/api/v1/members/alice');
  expect(alice.body).toMatchObject({ externalId: 'alice', name: null, points: 0 });
}

describe('server API authentication', () => {
  it('answers 401 "Missing API key" when no key is sent', async () => {
    await expectEveryRoute({}, 401, 'Missing API key', /Authorization: Bearer|X-API-Key/);
  });

  it('treats an empty X-API-Key header as missing', async () => {
    expectError(await send('GET', '/api/v1/members', undefined, { 'x-api-key': '' }), 401, 'Missing API key');
  });

  it('answers 401 "Invalid API key" for a well-formed key that was never issued', async () => {
    const forged = `sk_live_${randomBase62(32)}`;
    await expectEveryRoute({ authorization: `Bearer ${forged}` }, 401, 'Invalid API key', /not recognised|revoked/);
    await expectEveryRoute({ 'x-api-key': forged }, 401, 'Invalid API key');
  });

  it('answers 401 "Invalid API key" for a key that differs from a real one in its last character', async () => {
    const last = server.secretKey.at(-1) === 'a' ? 'b' : 'a';
    const near = `${server.secretKey.slice(0, -1)}${last}`;
    expectError(await send('GET', '/api/v1/members', undefined, { authorization: `Bearer ${near}` }), 401, 'Invalid API key');
  });

  it('answers 401 "Invalid API key" for a revoked key, which worked before', async () => {
    const issued = issueKey(server.ctx.db, { projectId: server.projectId, type: 'secret' }, server.clock.now());
    const headers = { authorization: `Bearer ${issued.key}` };
    expect((await send('GET', '/api/v1/members', undefined, headers)).status).toBe(200);
    revokeKey(server.ctx.db, issued.id, server.clock.now());
    await expectEveryRoute(headers, 401, 'Invalid API key', /revoked/);
    await expectEveryRoute({ 'x-api-key': issued.key }, 401, 'Invalid API key');
  });

  it('answers 401 "API key expired" once a key is past its expiry, and not before', async () => {
    const issued = issueKey(
      server.ctx.db,
      { projectId: server.projectId, type: 'secret', expiresAt: new Date(server.clock.now().getTime() + HOUR_MS) },
      server.clock.now(),
    );
    const headers = { authorization: `Bearer ${issued.key}` };
    expect((await send('GET', '/api/v1/members', undefined, headers)).status).toBe(200);
    server.clock.advance(2 * HOUR_MS);
    await expectEveryRoute(headers, 401, 'API key expired', /expired/);
    // A key without an expiry keeps working at the same moment.
    expect((await server.api.get('/api/v1/members')).status).toBe(200);
  });

  it('answers 403 "Insufficient permissions" for a publishable key', async () => {
    expect(publishableKey).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
    await expectEveryRoute({ authorization: `Bearer ${publishableKey}` }, 403, 'Insufficient permissions', /publishable|secret key/);
    await expectEveryRoute({ 'x-api-key': publishableKey }, 403, 'Insufficient permissions');
  });

  it.each([
    ['Basic scheme', 'Basic abc'],
    ['Basic with the real key', 'Basic SECRET'],
    ['no scheme', 'SECRET'],
    ['Bearer without a key', 'Bearer'],
    ['Bearer with two tokens', 'Bearer SECRET extra'],
  ])('answers 401 for a malformed Authorization header (%s)', async (_name, value) => {
    const before = tableCounts(server);
    const res = await send('GET', '/api/v1/members', undefined, { authorization: value.replace('SECRET', server.secretKey) });
    expectError(res, 401, 'Invalid API key', /Authorization header must be "Bearer/);
    const write = await send('POST', '/api/v1/members', { externalId: 'mallory' }, { authorization: value.replace('SECRET', server.secretKey) });
    expectError(write, 401, 'Invalid API key');
    expect(tableCounts(server)).toEqual(before);
  });

  it('accepts the secret key in X-API-Key as an alternative to Bearer', async () => {
    const headers = { 'x-api-key': server.secretKey };
    const list = await send('GET', '/api/v1/members', undefined, headers);
    expect(list.status).toBe(200);
    expect(list.body.members.map((m: { externalId: string }) => m.externalId)).toContain('alice');
    const created = await send('POST', '/api/v1/members', { externalId: 'via-x-api-key' }, headers);
    expect(created.status).toBe(201);
    expect(created.body.externalId).toBe('via-x-api-key');
    const award = await send('POST', '/api/v1/members/via-x-api-key/points', { amount: 7 }, headers);
    expect(award.status).toBe(200);
    expect(award.body.transaction.actor).toBe(server.secretKey.slice(0, 12));
  });

  it('accepts the Bearer scheme case-insensitively', async () => {
    const res = await send('GET', '/api/v1/members', undefined, { authorization: `bearer ${server.secretKey}` });
    expect(res.status).toBe(200);
  });

  it('uses the Authorization header when both are sent', async () => {
    const res = await send('GET', '/api/v1/members', undefined, { authorization: 'Bearer sk_live_nope', 'x-api-key': server.secretKey });
    expectError(res, 401, 'Invalid API key');
  });
});

describe('outside the authenticated API', () => {
  it('answers unknown routes with 404 JSON {error: "Not Found", message}', async () => {
    for (const path of ['/nope', '/api/v1/nope', '/api/v2/members', '/api/v1/members/alice/unknown']) {
      const withKey = await server.api.get(path);
      expectError(withKey, 404, 'Not Found', /No such endpoint/);
      const withoutKey = await request(server.url, 'GET', path);
      expectError(withoutKey, 404, 'Not Found', /No such endpoint/);
    }
  });

  it('answers a method a known path does not serve with 405 and an Allow header, before auth', async () => {
    const cases: [string, string, string, string][] = [
      ['PUT', '/api/v1/members', 'POST, GET, HEAD', 'POST, GET or HEAD'],
      ['DELETE', '/api/v1/members/alice/points', 'POST, GET, HEAD', 'POST, GET or HEAD'],
      ['POST', '/api/v1/members/lookup', 'GET, DELETE, HEAD', 'GET, DELETE or HEAD'],
      ['OPTIONS', '/api/v1/members/alice', 'GET, PATCH, DELETE, HEAD', 'GET, PATCH, DELETE or HEAD'],
      ['GET', '/api/v1/events', 'POST', 'POST'],
    ];
    for (const [method, path, allow, sentence] of cases) {
      for (const res of [await server.api.call(method, path), await request(server.url, method, path)]) {
        expectError(res, 405, 'Method Not Allowed', `${method} is not allowed here; use ${sentence}.`);
        expect(res.headers.allow).toBe(allow);
      }
    }
    // HEAD stays GET without a body.
    const head = await server.api.call('HEAD', '/api/v1/members');
    expect(head.status).toBe(200);
    expect(head.text).toBe('');
  });

  it('answers GET /healthz with 200 JSON and no key', async () => {
    const res = await request(server.url, 'GET', '/healthz');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toMatchObject({ status: 'ok', database: 'ok', replication: { enabled: false, state: 'off', lastSyncAt: null, lagSeconds: null } });
  });
});

describe('revocation while the server runs', () => {
  it('takes effect on the next request, also when another process (the CLI) revokes', async () => {
    const { openStore } = await import('../src/db/store.ts');
    const { TEST_MASTER_KEY } = await import('./helpers/server.ts');
    const first = issueKey(server.ctx.db, { projectId: server.projectId, type: 'secret' }, server.clock.now());
    const second = issueKey(server.ctx.db, { projectId: server.projectId, type: 'secret' }, server.clock.now());
    const useKey = (key: string) => request(server.url, 'GET', '/api/v1/members', { key });
    expect((await useKey(first.key)).status).toBe(200); // now cached
    expect((await useKey(second.key)).status).toBe(200);

    // Same connection, as the server's own code would.
    revokeKey(server.ctx.db, first.id, server.clock.now());
    expectError(await useKey(first.key), 401, 'Invalid API key');
    expect((await useKey(second.key)).status).toBe(200); // cached again

    // A second connection to the same file, as `punchcard keys revoke` would.
    const cli = await openStore({ path: server.dbPath, masterKey: TEST_MASTER_KEY });
    try {
      revokeKey(cli.db, second.id, server.clock.now());
    } finally {
      cli.close();
    }
    expectError(await useKey(second.key), 401, 'Invalid API key');
  });
});
