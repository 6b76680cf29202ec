import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { saveConnection } from '../src/domain/commerce/stores.ts';
import type { ApiResponse } from './helpers/http.ts';
import { startTestServer, tableCounts, type TestServer } from './helpers/server.ts';
import { type AdminBrowser, makeOperator } from './helpers/admin.ts';
import { H3 } from 'h3';
import { mountSurfaces } from '../src/http/surface.ts';

type Api = TestServer['api'];

let server: TestServer;
let a: { projectId: string; api: Api };
let b: { projectId: string; api: Api };

/** B's members, with an externalId that needs encoding and one that A will reuse. */
const B_MEMBERS = [
  { externalId: 'bella', email: 'bella@b.example', name: 'Bella B', phone: '+1555', dateOfBirth: '1990-04-01', metadata: { tier: 'gold' } },
  { externalId: 'shop/7 ✓', email: 'seven@b.example', name: 'Seven' },
  { externalId: 'shared-id', email: 'shared@b.example', name: 'Shared in B' },
];

const enc = encodeURIComponent;

/** Everything B holds, as raw rows, to compare before and after A's attempts. */
function snapshotB() {
  const db = server.ctx.db;
  return {
    members: db.prepare('SELECT * FROM members WHERE project_id = ? ORDER BY id').all(b.projectId),
    transactions: (db.prepare('SELECT count(*) AS n FROM transactions WHERE project_id = ?').get(b.projectId) as { n: number }).n,
    lots: db.prepare('SELECT * FROM point_lots WHERE project_id = ? ORDER BY transaction_id').all(b.projectId),
  };
}

function expectNotFound(res: ApiResponse, label: string) {
  expect(res.status, `${label}: ${res.text}`).toBe(404);
  expect(res.body.error, label).toBe('Not Found');
  expect(Object.keys(res.body).sort(), label).toEqual(['error', 'message']);
}

beforeAll(async () => {
  server = await startTestServer();
  a = { projectId: server.projectId, api: server.api };
  b = server.addProject('Tenant B');
  for (const member of B_MEMBERS) expect((await b.api.post('/api/v1/members', member)).status).toBe(201);
  for (const { externalId } of B_MEMBERS) {
    expect((await b.api.post(`/api/v1/members/${enc(externalId)}/points`, { amount: 100, description: 'B award' })).status).toBe(200);
    expect((await b.api.post(`/api/v1/members/${enc(externalId)}/points`, { amount: -30 })).status).toBe(200);
  }
  expect((await b.api.post('/api/v1/members/bella/points', { amount: 5, expiresAt: '2099-01-01T00:00:00Z' })).status).toBe(200);
  expect((await a.api.post('/api/v1/members', { externalId: 'alice', email: 'alice@a.example', name: 'Alice A' })).status).toBe(201);
});
afterAll(() => server.stop());

describe('tenancy: a project key sees and changes only its own project', () => {
  it("answers 404 on every member and points route for another project's externalIds, and changes nothing", async () => {
    const before = snapshotB();
    const counts = tableCounts(server);
    expect(before.transactions).toBe(7);

    for (const { externalId, email } of B_MEMBERS) {
      const path = `/api/v1/members/${enc(externalId)}`;
      const attempts: [string, () => Promise<ApiResponse>][] = [
        ['GET member', () => a.api.get(path)],
        ['PATCH member', () => a.api.patch(path, { name: 'Hijacked', email: 'evil@a.example', metadata: { owned: true } })],
        ['DELETE member', () => a.api.delete(path)],
        ['GET export', () => a.api.get(`${path}/export`)],
        ['GET points', () => a.api.get(`${path}/points`)],
        ['GET points history', () => a.api.get(`${path}/points?history=true&limit=100`)],
        ['POST award', () => a.api.post(`${path}/points`, { amount: 1000 })],
        ['POST deduct', () => a.api.post(`${path}/points`, { amount: -70 })],
        ['POST award with idempotency key', () => a.api.post(`${path}/points`, { amount: 5, idempotencyKey: `x-${externalId}` })],
        ['lookup by email', () => a.api.get(`/api/v1/members/lookup?email=${enc(email)}`)],
        ['lookup by email, other case', () => a.api.get(`/api/v1/members/lookup?email=${enc(email.toUpperCase())}`)],
        ['lookup by externalId', () => a.api.get(`/api/v1/members/lookup?externalId=${enc(externalId)}`)],
        ['export by ?externalId=', () => a.api.get(`/api/v1/members/lookup/export?externalId=${enc(externalId)}`)],
        ['erase by ?externalId=', () => a.api.delete(`/api/v1/members/lookup?externalId=${enc(externalId)}`)],
      ];
      for (const [label, attempt] of attempts) {
        const res = await attempt();
        expectNotFound(res, `${label} ${externalId}`);
      }
    }

    expect(snapshotB()).toEqual(before);
    expect(tableCounts(server)).toEqual(counts);
    // B still sees its own members exactly as they were.
    const bella = await b.api.get('/api/v1/members/bella');
    expect(bella.body).toMatchObject({ name: 'Bella B', email: 'bella@b.example', points: 75, metadata: { tier: 'gold' } });
    const export_ = await b.api.get('/api/v1/members/bella/export');
    expect(export_.body.transactions).toHaveLength(3);
  });

  it("never lists another project's members, with or without a search", async () => {
    const all = await a.api.get('/api/v1/members?limit=100');
    expect(all.status).toBe(200);
    expect(all.body.members.map((m: { externalId: string }) => m.externalId)).toEqual(['alice']);
    expect(all.body.pagination).toEqual({ total: 1, limit: 100, offset: 0, hasMore: false });

    for (const search of ['bella', 'b.example', 'Seven', 'shared', '@', 'e', '']) {
      const res = await a.api.get(`/api/v1/members?search=${enc(search)}`);
      expect(res.status, search).toBe(200);
      const ids = res.body.members.map((m: { externalId: string }) => m.externalId);
      expect(ids.every((id: string) => id === 'alice'), `search "${search}" leaked ${ids}`).toBe(true);
      expect(res.body.pagination.total, search).toBe(ids.length);
    }
    const paged = await a.api.get('/api/v1/members?offset=1');
    expect(paged.body.members).toEqual([]);
    expect(paged.body.pagination).toMatchObject({ total: 1, hasMore: false });

    // And B, for its part, sees only its own three.
    const fromB = await b.api.get('/api/v1/members');
    expect(fromB.body.members.map((m: { externalId: string }) => m.externalId).sort()).toEqual(B_MEMBERS.map((m) => m.externalId).sort());
  });

  it("imports into A's own members when A's rows name B's externalIds and emails, leaving B's untouched", async () => {
    const before = snapshotB();
    const res = await a.api.post('/api/v1/members/import', { batchId: 'tenancy', mode: 'reset', rows: [
      { externalId: 'bella', balance: 0 }, { email: 'seven@b.example', balance: 3 }, { externalId: 'shop/7 ✓', email: 'bella@b.example', balance: 1000 },
    ] });
    expect(res.status, res.text).toBe(200);
    expect(res.body.rows.map((row: { outcome: string }) => row.outcome)).toEqual(['new', 'new', 'new']);
    expect(snapshotB()).toEqual(before);
    expect((await a.api.get(`/api/v1/members/${enc('shop/7 ✓')}`)).body).toMatchObject({ points: 1000, email: 'bella@b.example' });
    // B's own import sees only B's members: its batchId is B's, whatever A sent under the same one.
    const fromB = await b.api.post('/api/v1/members/import', { batchId: 'tenancy', rows: [{ externalId: 'bella', balance: 1 }] });
    expect(fromB.body.rows[0]).toMatchObject({ outcome: 'updated', balance: 76 });
  });

  it("creates a separate member when A posts B's externalId, leaving B's untouched", async () => {
    const before = snapshotB();
    const bShared = (await b.api.get('/api/v1/members/shared-id')).body;

    const created = await a.api.post('/api/v1/members', { externalId: 'shared-id', name: 'Shared in A' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ externalId: 'shared-id', name: 'Shared in A', email: null, points: 0, totalPointsEarned: 0 });
    expect(created.body.id).not.toBe(bShared.id);

    const award = await a.api.post('/api/v1/members/shared-id/points', { amount: 9 });
    expect(award.status).toBe(200);
    expect(award.body.member).toMatchObject({ id: created.body.id, points: 9 });

    const again = await a.api.post('/api/v1/members', { externalId: 'shared-id', email: 'a-side@a.example' });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(created.body.id);

    expect(snapshotB()).toEqual(before);
    expect((await b.api.get('/api/v1/members/shared-id')).body).toEqual(bShared);
    expect((await a.api.get('/api/v1/members/shared-id')).body).toMatchObject({ id: created.body.id, name: 'Shared in A', email: 'a-side@a.example', points: 9 });
    // A's lookup by B's email for this externalId still finds nothing.
    expectNotFound(await a.api.get('/api/v1/members/lookup?email=shared%40b.example'), 'lookup B email');

    const rows = server.ctx.db.prepare("SELECT project_id FROM members WHERE external_id = 'shared-id' ORDER BY project_id").all() as { project_id: string }[];
    expect(rows.map((r) => r.project_id).sort()).toEqual([a.projectId, b.projectId].sort());
  });

  it('erasing in A leaves the same externalId in B alone', async () => {
    const before = snapshotB();
    const res = await a.api.delete('/api/v1/members/shared-id');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, deleted: 'shared-id' });
    expect(snapshotB()).toEqual(before);
    expect((await b.api.get('/api/v1/members/shared-id')).body).toMatchObject({ name: 'Shared in B', points: 70 });
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it("does not share idempotency keys between projects", async () => {
    const key = { 'idempotency-key': 'same-key-both-projects' };
    const inB = await b.api.post('/api/v1/members/bella/points', { amount: 2 }, { headers: key });
    const inA = await a.api.post('/api/v1/members/alice/points', { amount: 2 }, { headers: key });
    expect(inB.status).toBe(200);
    expect(inA.status).toBe(200);
    expect(inA.headers['idempotent-replayed']).toBeUndefined();
    expect(inA.body.member.externalId).toBe('alice');
    expect(inB.body.member.externalId).toBe('bella');
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });
  it("answers 404 on every webhook route for another project's webhook, and changes nothing", async () => {
    const bHook = await b.api.post('/api/v1/webhooks', { url: 'https://93.184.215.14/b', events: ['points.awarded'] });
    expect(bHook.status).toBe(201);
    const snapshot = () => server.ctx.db.prepare('SELECT * FROM webhooks WHERE project_id = ?').all(b.projectId);
    const before = snapshot();
    const counts = tableCounts(server);
    const path = `/api/v1/webhooks/${bHook.body.id}`;
    const attempts: [string, () => Promise<ApiResponse>][] = [
      ['GET webhook', () => a.api.get(path)],
      ['PATCH webhook', () => a.api.patch(path, { url: 'https://93.184.215.14/stolen', isActive: false })],
      ['DELETE webhook', () => a.api.delete(path)],
      ['rotate secret', () => a.api.post(`${path}/rotate-secret`)],
      ['test delivery', () => a.api.post(`${path}/test`)],
    ];
    for (const [label, attempt] of attempts) expectNotFound(await attempt(), label);
    expect((await a.api.get('/api/v1/webhooks')).body).toEqual({ webhooks: [] });
    expect(snapshot()).toEqual(before);
    expect(tableCounts(server)).toEqual(counts);
    expect((await b.api.get('/api/v1/webhooks')).body.webhooks.map((w: { id: string }) => w.id)).toEqual([bHook.body.id]);
    expect((await b.api.delete(path)).status).toBe(200);
  });
  it("answers 404 on every commerce route for another project's store, and changes nothing", async () => {
    const connection = { storeId: 'store_tenantB', siteUrl: 'https://b-shop.example', organizationId: 'org_b', consumerKey: 'ck_b', consumerSecret: 'cs_b',
      webhookSecret: 'secret_b', webhooks: [{ id: 1, topic: 'order.updated' }] };
    saveConnection(server.ctx.db, server.ctx.box, b.projectId, connection, new Date());
    const snapshot = () => server.ctx.db.prepare('SELECT * FROM commerce_stores WHERE project_id = ?').all(b.projectId);
    const before = snapshot();
    const counts = tableCounts(server);
    const path = '/api/commerce/stores/store_tenantB/settings';
    const attempts: [string, () => Promise<ApiResponse>][] = [
      ['GET settings', () => a.api.get(path)],
      ['PATCH settings', () => a.api.patch(path, { pointsPerDollar: 100 })],
      ['DELETE connect (A has no store)', () => a.api.delete('/api/commerce/connect')],
      ['POST coupon', () => a.api.post('/api/commerce/coupons', { storeId: 'store_tenantB', rewardClaimId: 'clm_x', discountType: 'PERCENTAGE', discountValue: 10 })],
    ];
    for (const [label, attempt] of attempts) expectNotFound(await attempt(), label);
    expect(snapshot()).toEqual(before);
    expect(tableCounts(server)).toEqual(counts);
    expect((await b.api.get(path)).status).toBe(200);
  });
  it("keeps community settings, deliveries and their log per project", async () => {
    const guild = '900000000000000777';
    const bSettings = await b.api.patch('/api/v1/community/settings', { guildId: guild, messagePoints: 7 });
    expect(bSettings.status).toBe(200);
    expect((await a.api.get('/api/v1/community/settings')).body).toMatchObject({ guildId: null, messagePoints: 1 });
    expect((await a.api.patch('/api/v1/community/settings', { guildId: guild })).status).toBe(409);
    const raw = JSON.stringify({ eventId: 'b-1', eventType: 'MESSAGE', communityUserId: 'u', channelId: 'c', messageId: 'm' });
    const sent = await b.api.post('/api/v1/community/events', undefined, { key: '', raw, headers: {
      'content-type': 'application/json', 'x-community-guild-id': guild, 'x-community-timestamp': String(Math.floor(Date.now() / 1000)),
      'x-community-signature': createHmac('sha256', bSettings.body.webhookSecret).update(raw).digest('hex') } });
    expect(sent.status).toBe(200);
    expect((await a.api.get('/api/community/events/logs')).body.events).toEqual([]);
    expect((await b.api.get('/api/community/events/logs')).body.events.map((e: { eventId: string }) => e.eventId)).toEqual(['b-1']);
  });
});

describe('tenancy of the admin: an operator sees and changes only the projects they hold a role in', () => {
  let ownerA: AdminBrowser;
  let ownerB: AdminBrowser;
  beforeAll(async () => {
    ownerA = await makeOperator(server, 'owner-a@a.example', 'owner', { projectId: a.projectId });
    ownerB = await makeOperator(server, 'owner-b@b.example', 'owner', { projectId: b.projectId });
  });

  it('lists only their own projects', async () => {
    expect((await ownerA.get('session')).body.projects.map((project: { id: string }) => project.id)).toEqual([a.projectId]);
  });

  it('answers 404 on every admin route of a project they hold no role in, or that does not exist, and changes nothing', async () => {
    const before = snapshotB();
    const counts = tableCounts(server);
    const routes = mountSurfaces(new H3(), server.ctx).filter((route) => route.surface === 'admin');
    expect(routes.length).toBeGreaterThan(60);
    for (const projectId of [b.projectId, 'prj_nothing']) {
      for (const route of routes) {
        const path = route.path.replace(':projectId', projectId).replace(/:(\w+)/g, (_m, name: string) => (name === 'externalId' ? 'bella' : 'x'));
        const res = await ownerA.call(route.method, path, route.method === 'GET' ? {} : { body: {} });
        expectNotFound(res, `${route.method} ${path}`);
        expect(res.body.message).toBe(`No project with id "${projectId}"`);
      }
    }
    expect(snapshotB()).toEqual(before);
    expect(tableCounts(server)).toEqual(counts);
  });

  it("answers 404 in their own project for another project's members, items, claims, webhooks, deliveries, keys and operators", async () => {
    const inB = (rest: string) => `/api/admin/projects/${b.projectId}/${rest}`;
    const inA = (rest: string) => `/api/admin/projects/${a.projectId}/${rest}`;
    const raffle = (await ownerB.post(inB('catalog/rewards'), { name: 'B raffle', type: 'RAFFLE', pointsCost: 1 })).body.id;
    const mug = (await ownerB.post(inB('catalog/rewards'), { name: 'B mug', type: 'PHYSICAL', pointsCost: 1 })).body.id;
    // A member of B's alone (A's own tests import and create members named like B's others).
    expect((await b.api.post('/api/v1/members', { externalId: 'bianca', email: 'bianca@b.example' })).status).toBe(201);
    expect((await b.api.post('/api/v1/members/bianca/points', { amount: 10 })).status).toBe(200);
    const claim = (await b.api.post(`/api/v1/rewards/${mug}/redeem`, { externalId: 'bianca' })).body.claim.id;
    const hook = (await b.api.post('/api/v1/webhooks', { url: 'https://93.184.215.14/b-admin', events: ['points.awarded'] })).body.id;
    expect((await b.api.post('/api/v1/members/bianca/points', { amount: 1 })).status).toBe(200);
    const delivery = (await ownerB.get(inB(`webhooks/${hook}/deliveries`))).body.deliveries[0].id;
    const key = (await ownerB.post(inB('keys'), { type: 'publishable' })).body.key.id;
    const operator = (await ownerB.get('session')).body.operator.id;
    expect([raffle, mug, claim, hook, delivery, key, operator].every((id) => typeof id === 'string')).toBe(true);

    const before = snapshotB();
    const counts = tableCounts(server);
    const reward = (rest = '') => inA(`catalog/rewards/${mug}${rest}`);
    const attempts: [string, string, unknown?][] = [
      ['GET', inA('members/bianca')], ['GET', inA('members/bianca/transactions')], ['GET', inA('members/bianca/export')],
      ['POST', inA('members/bianca/points'), { amount: 1000, reason: 'stolen' }], ['DELETE', inA('members/bianca'), { confirm: 'bianca' }],
      ['GET', reward()], ['PATCH', reward(), { name: 'Hijacked' }], ['DELETE', reward()],
      ['POST', inA(`claims/${claim}/fulfil`), {}], ['POST', inA(`rewards/${raffle}/draw`), { winners: 1 }],
      ['DELETE', inA(`keys/${key}`)], ['DELETE', inA(`webhooks/${hook}`)], ['GET', inA(`webhooks/${hook}/deliveries`)],
      ['POST', inA(`webhooks/${hook}/deliveries/${delivery}/replay`), {}], ['POST', inA(`webhooks/${hook}/enable`), {}],
      ['PATCH', inA(`operators/${operator}`), { role: 'viewer' }], ['DELETE', inA(`operators/${operator}`)],
    ];
    for (const [method, path, body] of attempts) expectNotFound(await ownerA.call(method, path, body === undefined ? {} : { body }), `${method} ${path}`);
    expect(snapshotB()).toEqual(before);
    expect(tableCounts(server)).toEqual(counts);

    // Nor do A's lists show any of B's.
    expect((await ownerA.get(inA('members?search=bianca'))).body.members).toEqual([]);
    expect((await ownerA.get(inA('claims?status=all'))).body.claims).toEqual([]);
    expect((await ownerA.get(inA('keys'))).body.keys.map((one: { id: string }) => one.id)).not.toContain(key);
    expect((await ownerA.get(inA('operators'))).body.operators.map((one: { email: string }) => one.email)).toEqual(['owner-a@a.example']);
    const auditA = JSON.stringify((await ownerA.get(inA('audit?limit=100'))).body.entries);
    for (const id of [raffle, mug, claim, hook, key, 'bianca', 'owner-b@b.example']) expect(auditA).not.toContain(id);
  });
});
