import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { ADMIN_PASSWORD, AdminBrowser, projectPath } from './helpers/admin.ts';
import { punchcard } from './helpers/cli.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// An operator's first day through the real HTTP server: invited from the CLI, a password chosen
// through the link, signed in, points adjusted, a reward created, a claim fulfilled, the audit log read.

let server: TestServer;
let owner: AdminBrowser;
const at = (rest: string) => projectPath(server.projectId, rest);

beforeAll(async () => {
  server = await startTestServer();
  owner = new AdminBrowser(server);
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

describe("an operator's first day", { timeout: 60_000 }, () => {
  let link = '';

  it('is invited from the CLI with a one-time link, which shows who it is for', async () => {
    const invited = punchcard(['--db', server.dbPath, 'admin', 'invite', 'Owner@Shop.example', '--role', 'owner', '--public-url', server.url, '--json']);
    expect(invited.status, invited.stderr).toBe(0);
    const printed = JSON.parse(invited.stdout);
    expect(printed).toMatchObject({ projectId: server.projectId, operator: { email: 'Owner@Shop.example', role: 'owner', pending: true } });
    link = printed.link;
    expect(link).toMatch(new RegExp(`^${server.url}/admin/invite/[\\w-]{43}$`));
    const token = link.split('/').at(-1)!;
    const shown = await owner.get(`invites/${token}`);
    expect(shown.status, shown.text).toBe(200);
    expect(shown.body).toMatchObject({ email: 'Owner@Shop.example', role: 'owner', projectName: 'Default', kind: 'invite' });
    expect(shown.headers['cache-control']).toBe('no-store');
    // The link is stored hashed: the token is nowhere in the database.
    const rows = server.ctx.db.prepare('SELECT token_hash FROM operator_invites').all() as { token_hash: string }[];
    expect(rows.map((row) => row.token_hash)).not.toContain(token);
  });

  it('chooses a password of at least 12 characters through the link, once, and is signed in', async () => {
    const token = link.split('/').at(-1)!;
    const short = await owner.post(`invites/${token}`, { password: 'too short' });
    expect(short.status).toBe(400);
    expect(short.body.message).toMatch(/"password" must be at least 12 characters/);
    const accepted = await owner.post(`invites/${token}`, { password: ADMIN_PASSWORD, name: 'Olivia' });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.body).toMatchObject({
      operator: { email: 'Owner@Shop.example', name: 'Olivia', totpEnabled: false },
      projects: [{ id: server.projectId, name: 'Default', role: 'owner', ownerTotpRequired: false }],
    });
    expect(accepted.body.csrfToken).toMatch(/^[\w-]{43}$/);
    const cookies = [accepted.headers['set-cookie']].flat().join('\n');
    expect(cookies).toMatch(/punchcard_admin=[\w-]{43}; Max-Age=604800; Path=\/; HttpOnly; SameSite=Strict/);
    expect(cookies).toMatch(/punchcard_device=[\w-]{43}; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Strict/);
    const again = await new AdminBrowser(server).post(`invites/${token}`, { password: ADMIN_PASSWORD });
    expect(again.status).toBe(404);
    expect(again.body.message).toMatch(/not valid: it was used already, it expired/);
  });

  it('signs out, and signs in with email and password', async () => {
    expect((await owner.delete('session')).status).toBe(200);
    expect((await owner.get('session')).status).toBe(401);
    const session = await owner.signIn('owner@shop.example');
    expect(session.operator.email).toBe('Owner@Shop.example');
    expect((await owner.get('session')).body).toEqual(session);
  });

  it('finds a member and adjusts their points with a reason, once for a double click', async () => {
    expect((await server.api.post('/api/v1/members', { externalId: 'alice', email: 'alice@example.com', name: 'Alice' })).status).toBe(201);
    const found = await owner.get(at('members?search=alic'));
    expect(found.body.members.map((member: { externalId: string }) => member.externalId)).toEqual(['alice']);
    const noReason = await owner.post(at('members/alice/points'), { amount: 50, reason: '  ' });
    expect(noReason.status).toBe(400);
    expect(noReason.body.message).toMatch(/"reason" must not be empty/);
    const click = { headers: { 'idempotency-key': 'adjust-form-1' } };
    const first = await owner.post(at('members/alice/points'), { amount: 50, reason: 'Welcome gift' }, click);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toMatchObject({ transaction: { amount: 50, type: 'EARNED', source: 'api', description: 'Welcome gift' }, member: { points: 50 } });
    expect(first.body.transaction.actor).toMatch(/^admin:opr_/);
    const second = await owner.post(at('members/alice/points'), { amount: 50, reason: 'Welcome gift' }, click);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    const profile = await owner.get(at('members/alice'));
    expect(profile.body).toMatchObject({ member: { externalId: 'alice', points: 50 }, level: null, badges: [], quests: [], claims: [],
      referral: { referralCode: null, stats: { totalReferrals: 0 } } });
    const history = await owner.get(at('members/alice/transactions?limit=10'));
    expect(history.body.transactions).toHaveLength(1);
    expect(history.body.pagination).toEqual({ total: 1, limit: 10, offset: 0, hasMore: false });
  });

  let claimId = '';

  it('creates a reward with the API\'s validation messages, and fulfils a claim of it', async () => {
    const invalid = await owner.post(at('catalog/rewards'), { name: 'Mug', type: 'PHYSICAL', pointsCost: -5 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.message).toMatch(/"pointsCost"/);
    const reward = await owner.post(at('catalog/rewards'), { name: 'Mug', type: 'PHYSICAL', pointsCost: 20 });
    expect(reward.status, reward.text).toBe(201);
    const redeemed = await server.api.post(`/api/v1/rewards/${reward.body.id}/redeem`, { externalId: 'alice' });
    expect(redeemed.status, redeemed.text).toBe(200);
    claimId = redeemed.body.claim.id;
    const pending = await owner.get(at('claims?status=pending'));
    expect(pending.body.claims).toEqual([{
      id: claimId, reward: { id: reward.body.id, name: 'Mug', type: 'PHYSICAL' }, member: { externalId: 'alice' }, pointsSpent: 20, status: 'PENDING',
      createdAt: expect.any(String), fulfilledAt: null,
    }]);
    const fulfilled = await owner.post(at(`claims/${claimId}/fulfil`), { note: 'Sent by post' });
    expect(fulfilled.status, fulfilled.text).toBe(200);
    expect(fulfilled.body).toMatchObject({ id: claimId, status: 'DELIVERED', fulfilledAt: server.clock.now().toISOString() });
    expect((await owner.get(at('claims?status=pending'))).body.claims).toEqual([]);
    expect((await owner.get(at('claims?status=fulfilled'))).body.claims.map((claim: { id: string }) => claim.id)).toEqual([claimId]);
  });

  it('reads the audit log: who did what, from the admin, the CLI and the API, filtered and as CSV', async () => {
    const log = await owner.get(at('audit?limit=100'));
    expect(log.status, log.text).toBe(200);
    const entries = log.body.entries as { actor: { type: string; label: string; id: string }; action: string; target: string; summary: any }[];
    const actions = entries.map((entry) => `${entry.actor.type} ${entry.action} ${entry.target}`);
    expect(actions).toEqual(expect.arrayContaining([
      expect.stringMatching(/^cli admin invite Owner@Shop\.example$/),
      expect.stringMatching(/^operator invite accepted opr_/),
      'api POST /members alice',
      'operator POST /members/:externalId/points alice',
      expect.stringMatching(/^operator POST \/catalog\/rewards rwd_/),
      `operator POST /claims/:claimId/fulfil ${claimId}`,
    ]));
    // The claim the shop's server made for alice is the ledger's to record (its posting names the key), not the audit log's.
    expect(actions.filter((action) => action.startsWith('api POST /rewards/'))).toEqual([]);
    // The double click is one entry, like its one posting; the refused request (no reason) none.
    expect(entries.filter((entry) => entry.action === 'POST /members/:externalId/points')).toHaveLength(1);
    const adjusted = entries.find((entry) => entry.action === 'POST /members/:externalId/points')!;
    expect(adjusted.actor).toMatchObject({ type: 'operator', label: 'Owner@Shop.example' });
    expect(adjusted.summary).toEqual({ after: { amount: 50, reason: 'Welcome gift' } });
    expect(entries.find((entry) => entry.action === 'POST /claims/:claimId/fulfil')!.summary).toEqual({ after: { note: 'Sent by post' } });
    // Member data beyond the externalId stays out: the API's member creation kept neither email nor name.
    const created = entries.find((entry) => entry.action === 'POST /members')!;
    expect(created.summary).toEqual({ after: { externalId: 'alice' } });
    expect(JSON.stringify(entries)).not.toMatch(/alice@example\.com|"Alice"/);
    expect(created.actor.label).toMatch(/^sk_live_/);

    const byCli = await owner.get(at('audit?actor=cli'));
    expect(byCli.body.entries.map((entry: { action: string }) => entry.action)).toEqual(['admin invite']);
    const points = await owner.get(at(`audit?action=${encodeURIComponent('POST /members')}&target=alice`));
    expect(points.body.entries.map((entry: { action: string }) => entry.action)).toEqual(['POST /members/:externalId/points', 'POST /members']);
    // The CLI stamps its entries with the real time, the server with its test clock (frozen at its start): an hour apart is later than both.
    const later = await owner.get(at(`audit?from=${encodeURIComponent(new Date(server.clock.now().getTime() + 3_600_000).toISOString())}`));
    expect(later.body.entries).toEqual([]);

    const csv = await owner.get(at('audit?format=csv'), { unchecked: false });
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.headers['content-disposition']).toBe('attachment; filename="audit.csv"');
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe('id,at,actor.type,actor.id,actor.label,action,target,summary');
    expect(lines).toHaveLength(log.body.entries.length + 1);
  });

  it('exports its lists as CSV, every row matching the filters', async () => {
    for (const externalId of ['bob', 'carol', '=cmd']) expect((await server.api.post('/api/v1/members', { externalId })).status).toBe(201);
    const csv = await owner.get(at('members?format=csv&limit=1'));
    expect(csv.headers['content-disposition']).toBe('attachment; filename="members.csv"');
    const rows = csv.text.trim().split('\n');
    expect(rows).toHaveLength(5);
    expect(rows[0]).toBe('id,externalId,email,name,points,totalPointsEarned,level,levelName,currentStreak,longestStreak,createdAt');
    // A cell a spreadsheet would run as a formula is escaped.
    expect(csv.text).toContain(`'=cmd`);
    const sorted = await owner.get(at('members?sort=points&order=desc&limit=2'));
    expect(sorted.body.members.map((member: { externalId: string }) => member.externalId)[0]).toBe('alice');
    expect(sorted.body.pagination).toMatchObject({ total: 4, hasMore: true });
  });
});
