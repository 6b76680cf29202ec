import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveConnection } from '../src/domain/commerce/stores.ts';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { ADMIN_PASSWORD, AdminBrowser, makeOperator, projectPath } from './helpers/admin.ts';
import { punchcardJson } from './helpers/cli.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// What operators do in the admin besides the first day: members (profile, export, erase), the
// catalog, raffles, the widget's embed, keys, webhooks and their deliveries, integrations,
// operators and backups.

let server: TestServer;
let owner: AdminBrowser;
const at = (rest: string) => projectPath(server.projectId, rest);

beforeAll(async () => {
  server = await startTestServer({ webhooks: { runner: false } });
  owner = await makeOperator(server, 'owner@shop.example', 'owner');
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

describe('members', () => {
  it('shows a profile with level, badges, quests, claims and referrals, the history a page at a time, an export; erases with the externalId typed again', async () => {
    await server.api.post('/api/v1/levels', { name: 'Silver', level: 1, minTotalPointsEarned: 10 });
    const badge = (await server.api.post('/api/v1/badges', { name: 'Regular' })).body.id;
    const quest = (await server.api.post('/api/v1/quests', { name: 'Review', points: 5, targetCount: 2, completionMode: 'MANUAL' })).body.id;
    expect((await server.api.post('/api/v1/members', { externalId: 'mia', email: 'mia@example.com' })).status).toBe(201);
    for (let i = 0; i < 3; i++) expect((await owner.post(at('members/mia/points'), { amount: 10, reason: `visit ${i}` })).status).toBe(200);
    await server.api.post('/api/v1/members/mia/badges', { badgeId: badge });
    await server.api.post(`/api/v1/quests/${quest}/progress`, { externalId: 'mia', progress: 1 });
    const profile = (await owner.get(at('members/mia'))).body;
    expect(profile).toMatchObject({
      member: { externalId: 'mia', points: 30, level: 1, levelName: 'Silver' }, level: { level: 1, name: 'Silver' },
      badges: [{ badgeId: badge, name: 'Regular' }], quests: [{ questId: quest, name: 'Review', progress: 1, targetCount: 2, status: 'IN_PROGRESS', completedAt: null }],
      claims: [], referral: { referralCode: null },
    });
    const page = await owner.get(at('members/mia/transactions?limit=2&offset=1'));
    expect(page.body.transactions.map((t: { description: string }) => t.description)).toEqual(['visit 1', 'visit 0']);
    expect(page.body.pagination).toEqual({ total: 3, limit: 2, offset: 1, hasMore: false });
    const csv = await owner.get(at('members/mia/transactions?format=csv'));
    expect(csv.text.trim().split('\n')).toHaveLength(4);
    const exported = await owner.get(at('members/mia/export'));
    expect(exported.headers['content-disposition']).toBe(`attachment; filename="member-${profile.member.id}.json"`);
    expect(exported.body.member.email).toBe('mia@example.com');
    expect((await owner.delete(at('members/mia'), { confirm: 'mia' })).body).toEqual({ success: true, deleted: 'mia' });
    expect((await owner.get(at('members/mia'))).status).toBe(404);
  });
});

describe('the catalog and claims', () => {
  it('lists, creates, edits and archives every kind the way the API does, with CSV', async () => {
    const created = await owner.post(at('catalog/promo-codes'), { code: 'SPRING', rewardType: 'POINTS', points: 25 });
    expect(created.status, created.text).toBe(201);
    expect((await owner.patch(at(`catalog/promo-codes/${created.body.id}`), { points: 30 })).body.points).toBe(30);
    expect((await owner.get(at(`catalog/promo-codes/${created.body.id}`))).body).toEqual((await server.api.get(`/api/v1/promo-codes/${created.body.id}`)).body);
    const csv = await owner.get(at('catalog/promo-codes?format=csv'));
    expect(csv.headers['content-disposition']).toBe('attachment; filename="promo-codes.csv"');
    expect(csv.text).toContain('SPRING');
    expect((await owner.delete(at(`catalog/promo-codes/${created.body.id}`))).body.archivedAt).not.toBeNull();
    expect((await owner.get(at('catalog/promo-codes'))).body.promoCodes).toEqual([]);
  });

  it('draws a raffle once, and lists its winners as fulfilled', async () => {
    const raffle = (await owner.post(at('catalog/rewards'), { name: 'Hamper', type: 'RAFFLE', pointsCost: 1 })).body.id;
    for (const externalId of ['r1', 'r2', 'r3']) {
      await server.api.post('/api/v1/members', { externalId });
      await server.api.post(`/api/v1/members/${externalId}/points`, { amount: 1 });
      expect((await server.api.post(`/api/v1/rewards/${raffle}/redeem`, { externalId })).status).toBe(200);
    }
    expect((await owner.get(at(`claims?status=pending&rewardId=${raffle}`))).body.pagination.total).toBe(3);
    const drawn = await owner.post(at(`rewards/${raffle}/draw`), { winners: 1 });
    expect(drawn.body).toMatchObject({ rewardId: raffle, entries: 3, winners: [{ claimId: expect.any(String), externalId: expect.stringMatching(/^r\d$/) }] });
    expect((await owner.post(at(`rewards/${raffle}/draw`), { winners: 1 })).status).toBe(409);
    const fulfilled = (await owner.get(at(`claims?status=fulfilled&rewardId=${raffle}`))).body.claims;
    expect(fulfilled.map((claim: { status: string }) => claim.status).sort()).toEqual(['LOST', 'LOST', 'WON']);
  });
});

describe('settings', () => {
  it('gives the widget\'s embed snippet with the publishable key, never a secret', async () => {
    const embed = (await owner.get(at('widget/embed'))).body;
    expect(embed).toEqual({ snippet: expect.stringContaining(`<script async src="${server.url}/widget.js"></script>`), publicKey: server.publishableKey, allowedOrigins: [] });
    expect(embed.snippet).toContain(server.publishableKey);
    expect(embed.snippet).not.toContain(server.widgetSecret);
  });

  it('creates and revokes API keys, and lists them', async () => {
    const created = (await owner.post(at('keys'), { type: 'publishable' })).body;
    const revoked = await owner.delete(at(`keys/${created.key.id}`));
    expect(revoked.body).toMatchObject({ id: created.key.id, revokedAt: server.clock.now().toISOString() });
    expect((await owner.get(at('keys'))).body.keys).toContainEqual(expect.objectContaining({ id: created.key.id, revokedAt: expect.any(String) }));
    expect((await owner.delete(at('keys/key_nothing'))).status).toBe(404);
  });

  it('shows a webhook\'s deliveries by state, replays one and re-enables the endpoint', async () => {
    const hook = (await owner.post(at('webhooks'), { url: 'https://93.184.215.14/hook', events: ['points.awarded'] })).body;
    await server.api.post('/api/v1/members', { externalId: 'hooked' });
    expect((await server.api.post('/api/v1/members/hooked/points', { amount: 2 })).status).toBe(200);
    const pending = await owner.get(at(`webhooks/${hook.id}/deliveries?state=pending`));
    expect(pending.body.deliveries).toEqual([{ id: expect.any(String), eventType: 'points.awarded', state: 'pending', attempts: 0, lastStatus: null, lastError: null,
      createdAt: expect.any(String), nextAttemptAt: expect.any(String), deliveredAt: null }]);
    const deliveryId = pending.body.deliveries[0].id;
    expect((await owner.post(at(`webhooks/${hook.id}/deliveries/${deliveryId}/replay`))).status).toBe(409); // still pending
    server.ctx.db.prepare("UPDATE webhook_deliveries SET status = 'dead', attempts = 5 WHERE public_id = ?").run(deliveryId);
    server.ctx.db.prepare("UPDATE webhooks SET is_active = 0, failed_at = ?, last_error = 'http_503' WHERE id = ?").run(server.clock.now().toISOString(), hook.id);
    expect((await owner.get(at(`webhooks/${hook.id}/deliveries?state=dead`))).body.deliveries).toHaveLength(1);
    expect((await owner.post(at(`webhooks/${hook.id}/deliveries/${deliveryId}/replay`))).body).toMatchObject({ id: deliveryId, state: 'pending', attempts: 0 });
    expect((await owner.get(at('webhooks'))).body.webhooks[0]).toMatchObject({ id: hook.id, state: 'disabled' });
    expect((await owner.post(at(`webhooks/${hook.id}/enable`))).body).toMatchObject({ id: hook.id, state: 'active', isActive: true });
    expect((await owner.delete(at(`webhooks/${hook.id}`))).body).toEqual({ success: true, deleted: hook.id });
  });

  it('shows the integrations as they stand, without credentials', async () => {
    expect((await owner.get(at('integrations'))).body).toEqual({
      commerce: { stores: [] }, community: { configured: false, guildId: null, botRunning: false, linkedMembers: 0 },
    });
    saveConnection(server.ctx.db, server.ctx.box, server.projectId, { storeId: 'store_admin', siteUrl: 'https://shop.example', organizationId: 'org',
      consumerKey: 'ck_admin_secret', consumerSecret: 'cs_admin_secret', webhookSecret: 'wh_admin_secret', webhooks: [] }, server.clock.now());
    const shown = await owner.get(at('integrations'));
    expect(shown.body.commerce.stores).toEqual([{ id: 'store_admin', siteUrl: 'https://shop.example', connectedAt: server.clock.now().toISOString(), lastDeliveryAt: null, state: 'connected' }]);
    expect(shown.text).not.toMatch(/admin_secret/);
  });

  it('invites operators by link, changes their role and removes them', async () => {
    const invited = await owner.post(at('operators'), { email: 'helper@shop.example', role: 'staff' });
    expect(invited.status).toBe(201);
    const helper = new AdminBrowser(server);
    const token = invited.body.inviteUrl.split('/').at(-1);
    expect((await helper.get(`invites/${token}`)).body).toMatchObject({ email: 'helper@shop.example', role: 'staff', projectName: 'Default', kind: 'invite' });
    expect((await helper.post(`invites/${token}`, { password: ADMIN_PASSWORD })).body.projects).toMatchObject([{ role: 'staff' }]);
    const listed = (await owner.get(at('operators'))).body.operators;
    expect(listed.find((one: { email: string }) => one.email === 'helper@shop.example')).toMatchObject({ role: 'staff', pending: false, lastSignInAt: expect.any(String) });
    const id = invited.body.operator.id;
    expect((await owner.patch(at(`operators/${id}`), { role: 'viewer' })).body.role).toBe('viewer');
    expect((await owner.delete(at(`operators/${id}`))).body).toEqual({ success: true, deleted: id });
    expect((await owner.get(at('operators'))).body.operators.map((one: { email: string }) => one.email)).toEqual(['owner@shop.example']);
  });

  it('takes a backup now, checked, beside the database, and lists it with the replication state', async () => {
    expect((await owner.get(at('backups'))).body).toEqual({ backups: [], replication: null });
    const taken = await owner.post(at('backups'));
    expect(taken.status, taken.text).toBe(201);
    // Named as `punchcard backup FOLDER` names its copies: the database's name and the UTC time.
    const time = server.clock.now().toISOString();
    expect(taken.body).toEqual({ file: `punchcard-${time.slice(0, 10)}T${time.slice(11, 23).replace(/:/g, '')}Z.db`, bytes: expect.any(Number), createdAt: time });
    expect(existsSync(join(server.dir, 'backups', taken.body.file))).toBe(true);
    expect((await owner.get(at('backups'))).body.backups).toEqual([{ file: taken.body.file, bytes: taken.body.bytes, createdAt: time }]);
    // The nightly timer's backup into the same folder is listed too, and its retention counts the admin's copy.
    const nightly = punchcardJson(['--db', server.dbPath, 'backup', join(server.dir, 'backups'), '--keep', '1']);
    expect(nightly.pruned).toEqual([taken.body.file]);
    expect((await owner.get(at('backups'))).body.backups.map((one: { file: string }) => one.file)).toEqual([basename(nightly.file)]);
    // Two in the same millisecond (the clock stands still here) are two copies, the second a millisecond on.
    const [first, second] = [await owner.post(at('backups')), await owner.post(at('backups'))];
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.file).not.toBe(first.body.file);
    const staff = await makeOperator(server, 'no-backups@shop.example', 'staff');
    expect((await staff.post(at('backups'))).status).toBe(403);
  });
});
