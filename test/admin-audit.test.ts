import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pruneAdminRows } from '../src/jobs/admin-housekeeping.ts';
import { ADMIN_PASSWORD, type AdminBrowser, makeOperator, projectPath } from './helpers/admin.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';
import { widgetClient } from './helpers/widget.ts';

// The audit log as the route helper writes it for every change through the server API and the
// admin: before and after without secrets or personal data, nothing for a change that failed or a
// replay, nothing for shoppers; kept for its retention and pruned in batches.

let server: TestServer;
let owner: AdminBrowser;
const clock = new TestClock(new Date('2026-05-01T10:00:00.000Z'));
const at = (rest: string) => projectPath(server.projectId, rest);
const entries = async (query = '') => (await owner.get(at(`audit?limit=100${query}`))).body.entries as any[];
const latest = async () => (await entries())[0];

beforeAll(async () => {
  server = await startTestServer({ clock });
  owner = await makeOperator(server, 'auditor@shop.example', 'owner');
});
afterAll(() => server.stop());

describe('the audit log', () => {
  it('records an edit through the server API with what it was before and after, under the key', async () => {
    const reward = await server.api.post('/api/v1/rewards', { name: 'Tote bag', type: 'CUSTOM', pointsCost: 20 });
    expect((await server.api.patch(`/api/v1/rewards/${reward.body.id}`, { pointsCost: 30, description: 'Canvas' })).status).toBe(200);
    const entry = await latest();
    const keyId = (server.ctx.db.prepare("SELECT id FROM api_keys WHERE project_id = ? AND type = 'secret'").get(server.projectId) as { id: string }).id;
    expect(entry).toEqual({
      id: expect.any(Number), at: clock.current.toISOString(), actor: { type: 'api', id: keyId, label: server.secretKey.slice(0, 12) },
      action: 'PATCH /rewards/:id', target: reward.body.id,
      summary: { before: { pointsCost: 20, description: null }, after: { pointsCost: 30, description: 'Canvas' } },
    });
    expect((await server.api.delete(`/api/v1/rewards/${reward.body.id}`)).status).toBe(200);
    expect((await latest()).summary).toEqual({ before: { name: 'Tote bag', type: 'CUSTOM' } });
  });

  it('keeps a member\'s personal data out: only their externalId names them', async () => {
    expect((await server.api.post('/api/v1/members', { externalId: 'dora', email: 'dora@example.com', name: 'Dora', phone: '+15550100' })).status).toBe(201);
    expect((await server.api.patch('/api/v1/members/dora', { name: 'Dora D', email: 'dd@example.com', metadata: { vip: true } })).status).toBe(200);
    const entry = await latest();
    expect(entry).toMatchObject({ action: 'PATCH /members/:externalId', target: 'dora', summary: {} });
    expect(JSON.stringify(await entries())).not.toMatch(/Dora|example\.com|5550100|vip/);
  });

  it('records the admin\'s nested changes of the project with their earlier values', async () => {
    expect((await owner.patch(at('project'), { widget: { theme: { primaryColor: '#112233' } }, welcomeBonus: 10 })).status).toBe(200);
    const entry = await latest();
    expect(entry).toMatchObject({
      actor: { type: 'operator', label: 'auditor@shop.example' }, action: 'PATCH /project', target: server.projectId,
      summary: { before: { widget: { theme: { primaryColor: '#4F46E5' } }, welcomeBonus: 0 }, after: { widget: { theme: { primaryColor: '#112233' } }, welcomeBonus: 10 } },
    });
  });

  it('records an operator\'s changes to their own account server-wide (in no project\'s log), without the passwords', async () => {
    expect((await owner.patch('me', { name: 'Audrey', currentPassword: ADMIN_PASSWORD, newPassword: 'another long passphrase' })).status).toBe(200);
    const row = server.ctx.db.prepare("SELECT project_id, actor_label, action, target, summary FROM audit_log WHERE action = 'PATCH /me'").get();
    expect(row).toEqual({ project_id: null, actor_label: 'auditor@shop.example', action: 'PATCH /me', target: expect.stringMatching(/^opr_/), summary: JSON.stringify({ after: { name: 'Audrey' } }) });
    expect((await entries()).map((entry) => entry.action)).not.toContain('PATCH /me');
  });

  it('writes nothing for a change that failed, a replay, a read, a shopper\'s own activity in the widget, or what the API does for a shopper (the ledger names its key)', async () => {
    const count = (await entries()).length;
    expect((await server.api.post('/api/v1/members/dora/points', { amount: -1_000 })).status).toBe(400);
    expect((await owner.post(at('members/dora/points'), { amount: -1_000, reason: 'too much' })).status).toBe(400);
    expect((await server.api.post('/api/v1/members/dora/points', { amount: 5 }, { headers: { 'idempotency-key': 'once' } })).status).toBe(200);
    expect((await server.api.post('/api/v1/members/dora/points', { amount: 5 }, { headers: { 'idempotency-key': 'once' } })).headers['idempotent-replayed']).toBe('true');
    await owner.get(at('members/dora'));
    const shopper = widgetClient(server.url, { publicKey: server.publishableKey, widgetSecret: server.widgetSecret }, 'dora', clock.now);
    expect((await shopper.post('/init', {})).status).toBe(200);
    expect((await shopper.patch('/profile', { name: 'Dora W' })).status).toBe(200);
    // An award for a shopper is the ledger's to record, with the key as its actor.
    const award = await server.api.post('/api/v1/members/dora/points', { amount: 7, description: 'review' });
    expect(award.status).toBe(200);
    expect(award.body.transaction.actor ?? server.ctx.db.prepare('SELECT actor FROM transactions ORDER BY id DESC LIMIT 1').pluck().get()).toBe(server.secretKey.slice(0, 12));
    const now = await entries();
    expect(now).toHaveLength(count);
    expect(now.every((entry) => entry.actor.type !== 'operator' || entry.actor.label === 'auditor@shop.example')).toBe(true);
    expect(now.map((entry) => entry.action)).not.toContain('PATCH /profile');
  });

  it('filters by days of the project\'s calendar (the admin\'s date fields) or by instants', async () => {
    expect((await owner.patch(at('project'), { timezone: 'Pacific/Auckland' })).status).toBe(200);
    clock.current = new Date('2026-05-01T11:30:00.000Z'); // 23:30 on 1 May in Auckland
    expect((await server.api.post('/api/v1/members', { externalId: 'late-may-1' })).status).toBe(201);
    clock.current = new Date('2026-05-01T12:30:00.000Z'); // 00:30 on 2 May there
    expect((await server.api.post('/api/v1/members', { externalId: 'early-may-2' })).status).toBe(201);
    const targets = async (query: string) => (await entries(`&action=POST%20/members&${query}`)).map((entry) => entry.target);
    expect(await targets('from=2026-05-02&to=2026-05-02')).toEqual(['early-may-2']);
    expect(await targets('from=2026-05-01&to=2026-05-01')).toEqual(expect.arrayContaining(['late-may-1']));
    expect(await targets('from=2026-05-01&to=2026-05-01')).not.toContain('early-may-2');
    expect(await targets(`from=${encodeURIComponent('2026-05-01T12:00:00Z')}`)).toEqual(['early-may-2']);
    expect((await owner.get(at('audit?to=2026-02-30'))).status).toBe(400);
  });

  it('is kept for its retention (400 days unless serve says otherwise), then pruned in batches', async () => {
    const insert = server.ctx.db.prepare(`INSERT INTO audit_log (project_id, at, actor_type, actor_id, actor_label, action, target, summary)
      VALUES (?, ?, 'api', 'key_x', 'sk_live_x', 'POST /members', 'bulk', '{}')`);
    server.ctx.db.transaction(() => {
      for (let i = 0; i < 1200; i++) insert.run(server.projectId, clock.current.toISOString());
    })();
    const old = (server.ctx.db.prepare('SELECT count(*) AS n FROM audit_log').get() as { n: number }).n;
    clock.advance(200 * 24 * 60 * 60_000);
    expect((await server.api.post('/api/v1/members', { externalId: 'late' })).status).toBe(201);
    clock.advance(201 * 24 * 60 * 60_000);
    const batches: unknown[] = [];
    const write = <T>(work: () => T) => server.ctx.write(() => {
      const result = work();
      batches.push(result);
      return result;
    });
    const pruned = await pruneAdminRows(server.ctx.db, write, clock.now(), 400 * 24 * 60 * 60_000);
    expect(pruned.audit).toBe(old);
    expect(batches.slice(0, 3)).toEqual([500, 500, old - 1000]);
    expect(pruned.sessions).toBe(1); // the auditor's, idle for months
    const left = server.ctx.db.prepare('SELECT target FROM audit_log').all();
    expect(left).toEqual([{ target: 'late' }]);
  });
});
