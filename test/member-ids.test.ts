import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { H3 } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UNADDRESSABLE_EXTERNAL_IDS } from '../src/domain/members/members.ts';
import { mountSurfaces } from '../src/http/surface.ts';
import { punchcard, punchcardJson } from './helpers/cli.ts';
import { client, type ApiResponse } from './helpers/http.ts';
import { startTestServer, tableCounts, TestClock, type TestServer } from './helpers/server.ts';
import { widgetHeader } from './helpers/widget.ts';

// An externalId goes into URL paths (/members/{externalId}, /leaderboard/members/{externalId}…):
// a member whose id no path can address could be made but never read or erased there. So no path
// that makes a member may make one; members that already have one are reached with ?externalId=.
let server: TestServer;
const enc = encodeURIComponent;
const RULE = /"externalId" must not be "\.", "\.\.", "lookup" or "import"/;

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-04-01T10:00:00.000Z')) });
});
afterAll(() => server.stop());

/** A member row written as an older version did, before the rule. */
function legacyMember(externalId: string, email: string): void {
  server.ctx.db.prepare(`INSERT INTO members (public_id, project_id, external_id, email, name, created_at, updated_at)
    VALUES (?, ?, ?, ?, 'Legacy', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`)
    .run(`mem_legacy${Buffer.from(externalId).toString('hex')}`, server.projectId, externalId, email);
}

function expectRefused(res: ApiResponse, label: string): void {
  expect(res.status, `${label}: ${res.text}`).toBe(400);
  expect(res.body.message, label).toMatch(RULE);
}

describe('externalIds no path can address', () => {
  it('are the dot segments and every route name that sits where /members/{externalId} does', () => {
    // Every static segment at the position of an {externalId} in some route with the same prefix.
    const routes = mountSurfaces(new H3(), server.ctx).map((route) => route.path.split('/'));
    const beside = new Set<string>();
    for (const path of routes) {
      path.forEach((segment, at) => {
        if (segment !== ':externalId') return;
        const prefix = path.slice(0, at).join('/');
        for (const other of routes) if (other.slice(0, at).join('/') === prefix && other[at] && !other[at]!.startsWith(':')) beside.add(other[at]!);
      });
    }
    expect([...beside].sort()).toEqual(['import', 'lookup']);
    expect([...UNADDRESSABLE_EXTERNAL_IDS].sort()).toEqual(['.', '..', ...beside].sort());
  });

  it('are refused with 400 naming the rule on every path that makes a member, and nothing is written', async () => {
    const counts = tableCounts(server);
    const referrer = await server.api.post('/api/v1/members', { externalId: 'referrer' });
    expect(referrer.status).toBe(201);
    const code = (await server.api.get('/api/v1/referrals/stats/referrer')).body.referralCode as string;
    const after = tableCounts(server);
    const anon = client(server.url);
    const signer = { publicKey: server.publishableKey, widgetSecret: server.widgetSecret };
    for (const id of UNADDRESSABLE_EXTERNAL_IDS) {
      expectRefused(await server.api.post('/api/v1/members', { externalId: id }), `POST /members ${id}`);
      expectRefused(await server.api.post('/api/v1/events', { externalId: id, event: 'visit' }), `POST /events ${id}`);
      expectRefused(await server.api.post('/api/v1/referrals/apply', { externalId: id, referralCode: code }), `referral ${id}`);
      const header = widgetHeader(signer, id, server.clock.now().getTime());
      expectRefused(await anon.post('/api/widget/init', {}, { headers: { 'x-widget-auth': header } }), `widget init ${id}`);
    }
    expect(tableCounts(server)).toEqual(after);
    expect(after.members).toBe(counts.members! + 1);
    // Look-alikes are ordinary ids.
    for (const id of ['...', '.a', 'a..', 'Lookup', 'lookups', 'a/..']) expect((await server.api.post('/api/v1/members', { externalId: id })).status, id).toBe(201);
  });

  it('leave members that already hold one reachable by ?externalId= on lookup, export and erase', async () => {
    legacyMember('..', 'dots@example.com');
    legacyMember('lookup', 'look@example.com');
    for (const id of ['..', 'lookup']) {
      const found = await server.api.get(`/api/v1/members/lookup?externalId=${enc(id)}`);
      expect(found.status, found.text).toBe(200);
      expect(found.body.externalId).toBe(id);
      const exported = await server.api.get(`/api/v1/members/lookup/export?externalId=${enc(id)}`);
      expect(exported.status, exported.text).toBe(200);
      expect(exported.body.member).toMatchObject({ externalId: id, name: 'Legacy' });
      // Their own updates and events still work: the rule is about making members, not using them.
      expect((await server.api.post('/api/v1/members', { externalId: id, name: 'Still here' })).status).toBe(200);
      expect((await server.api.post('/api/v1/events', { externalId: id, event: 'visit' })).status).toBe(200);
    }
    const erased = await server.api.delete(`/api/v1/members/lookup?externalId=${enc('..')}`);
    expect(erased.status, erased.text).toBe(200);
    expect(erased.body).toEqual({ success: true, deleted: '..' });
    expect((await server.api.get(`/api/v1/members/lookup?externalId=${enc('..')}`)).status).toBe(404);
    expect(server.ctx.db.prepare("SELECT email, erased_at IS NOT NULL AS erased FROM members WHERE public_id = ?").get(`mem_legacy${Buffer.from('..').toString('hex')}`))
      .toEqual({ email: null, erased: 1 });
    // The query names the member: export and erase without it are refused, and another project's member is not found.
    expect((await server.api.get('/api/v1/members/lookup/export')).status).toBe(400);
    expect((await server.api.delete('/api/v1/members/lookup')).status).toBe(400);
    const other = server.addProject('Other');
    expect((await other.api.get('/api/v1/members/lookup/export?externalId=lookup')).status).toBe(404);
    expect((await other.api.delete('/api/v1/members/lookup?externalId=lookup')).status).toBe(404);
    expect((await server.api.get('/api/v1/members/lookup?externalId=lookup')).status).toBe(200);
  });
});

describe('the CLI', { timeout: 60_000 }, () => {
  let dir: string;
  let db: string;
  let projectId: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'punchcard-member-ids-'));
    db = join(dir, 'shop.db');
    projectId = punchcardJson(['--db', db, 'projects', 'create', '--name', 'Shop']).project.id;
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports no member with such an id, naming the rule on its line', () => {
    const file = join(dir, 'members.csv');
    writeFileSync(file, 'externalId,name\nann,Ann\n..,Dots\nlookup,Look\n.,Dot\n');
    const result = punchcard(['--db', db, 'members', 'import', file, '--project', projectId, '--json']);
    expect(result.status).toBe(1);
    const report = JSON.parse(result.stdout);
    expect(report.created).toBe(1);
    expect(report.errors.map((e: { line: number }) => e.line)).toEqual([3, 4, 5]);
    for (const error of report.errors) expect(error.message).toMatch(RULE);
  });

  it('shows, exports and erases a member that already holds one', () => {
    const file = new Database(db);
    file.prepare(`INSERT INTO members (public_id, project_id, external_id, email, created_at, updated_at)
      VALUES ('mem_legacydots', ?, '..', 'dots@example.com', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`).run(projectId);
    file.close();
    expect(punchcardJson(['--db', db, 'members', 'show', '..', '--project', projectId]).member.externalId).toBe('..');
    const data = punchcard(['--db', db, 'members', 'data', '..', '--project', projectId]);
    expect(JSON.parse(data.stdout).member.email).toBe('dots@example.com');
    expect(punchcard(['--db', db, 'members', 'erase', '..', '--project', projectId, '--yes']).status).toBe(0);
    expect(punchcard(['--db', db, 'members', 'show', '..', '--project', projectId]).stderr).toMatch(/No member with externalId "\.\."/);
  });
});
