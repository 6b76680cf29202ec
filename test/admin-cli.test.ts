import { readFileSync, rmSync, statSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, AdminBrowser, projectPath } from './helpers/admin.ts';
import { punchcard, punchcardJson, secretsFile, spawnServer } from './helpers/cli.ts';
import { client } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// `punchcard admin invite|list|remove|reset`, the audit entries every CLI change writes, and what
// `serve` says (and serves) about the admin.

let server: TestServer;
const cli = (args: string[], env: NodeJS.ProcessEnv = {}) => punchcard(['--db', server.dbPath, ...args], env);
const auditRows = () => server.ctx.db.prepare('SELECT project_id, actor_type, actor_label, action, target, summary FROM audit_log WHERE actor_type = ? ORDER BY id')
  .all('cli') as { project_id: string | null; actor_type: string; actor_label: string; action: string; target: string; summary: string }[];

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe('punchcard admin', { timeout: 120_000 }, () => {
  it('invites into the only project, or asks which when there are several', () => {
    const one = cli(['admin', 'invite', 'first@shop.example', '--role', 'staff', '--public-url', 'https://loyalty.shop.example/', '--json']);
    expect(one.status, one.stderr).toBe(0);
    expect(JSON.parse(one.stdout)).toMatchObject({ projectId: server.projectId, link: expect.stringMatching(/^https:\/\/loyalty\.shop\.example\/admin\/invite\/[\w-]{43}$/) });
    const other = server.addProject('Second shop');
    const ambiguous = cli(['admin', 'invite', 'second@shop.example', '--role', 'viewer']);
    expect(ambiguous.status).toBe(1);
    expect(ambiguous.stderr).toContain(`there are 2 projects; say which with --project (${server.projectId} "Default", ${other.projectId} "Second shop")`);
    expect(cli(['admin', 'invite', 'nobody', '--role', 'viewer', '--project', other.projectId]).stderr).toMatch(/"nobody" is not an email address/);
    expect(cli(['admin', 'invite', 'x@shop.example', '--role', 'god', '--project', other.projectId]).stderr).toMatch(/Allowed choices are owner, staff, viewer/);
  });

  it('keeps the link off a stdout that is not a terminal: it goes to a 0600 file beside the database', async () => {
    const invited = cli(['admin', 'invite', 'quiet@shop.example', '--role', 'staff', '--project', server.projectId], { PUNCHCARD_PUBLIC_URL: server.url });
    expect(invited.status, invited.stderr).toBe(0);
    expect(invited.stdout).not.toMatch(/\/admin\/invite\/[\w-]{43}/);
    const file = secretsFile(invited.stdout)!;
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const link = /link\s+(\S+)/.exec(readFileSync(file, 'utf8'))![1]!;
    rmSync(file);
    expect(link.startsWith(`${server.url}/admin/invite/`)).toBe(true);
    const browser = new AdminBrowser(server);
    expect((await browser.post(`invites/${link.split('/').at(-1)}`, { password: ADMIN_PASSWORD })).status).toBe(200);
    // Inviting someone who already has an account gives the role, and prints no link.
    const again = cli(['admin', 'invite', 'quiet@shop.example', '--role', 'viewer', '--project', server.projectId]);
    expect(again.stdout).toMatch(/already has an account: they are viewer of prj_/);
    expect(secretsFile(again.stdout)).toBeNull();
  });

  it('lists the operators with their roles, and removes one: their sessions end at once', async () => {
    const listed = punchcardJson(['--db', server.dbPath, 'admin', 'list']).operators;
    expect(listed.map((operator: { email: string }) => operator.email).sort()).toEqual(['first@shop.example', 'quiet@shop.example']);
    expect(listed.find((operator: { email: string }) => operator.email === 'first@shop.example'))
      .toMatchObject({ pending: true, roles: [{ projectId: server.projectId, role: 'staff', pending: true }] });
    expect(cli(['admin', 'list']).stdout).toMatch(/quiet@shop\.example\s+-\s+prj_\w+:viewer\s+off/);
    const browser = new AdminBrowser(server);
    await browser.signIn('quiet@shop.example');
    const removed = cli(['admin', 'remove', 'QUIET@shop.example']);
    expect(removed.stdout).toMatch(/Removed quiet@shop\.example \(opr_\w+\); their sessions ended/);
    expect((await browser.get('session')).status).toBe(401);
    expect(cli(['admin', 'remove', 'quiet@shop.example']).stderr).toMatch(/No operator with email "quiet@shop\.example"/);
  });

  it('writes an audit entry in the same transaction as every change it makes, naming the project, without secrets', () => {
    const key = punchcardJson(['--db', server.dbPath, 'keys', 'create', '--project', server.projectId, '--type', 'secret', '--expires-in', '30d']);
    cli(['keys', 'revoke', key.id]);
    expect(cli(['points', 'add', '--project', server.projectId, '--member', 'nobody-here', '--amount', '5']).status).toBe(1);
    cli(['keys', 'list', '--project', server.projectId]);
    const rows = auditRows();
    const keyRows = rows.filter((row) => row.action.startsWith('keys'));
    // The refused award and the read wrote nothing; the revoke found its project through the key.
    expect(keyRows.map((row) => [row.project_id, row.action, row.target])).toEqual([[server.projectId, 'keys create', ''], [server.projectId, 'keys revoke', key.id]]);
    expect(JSON.parse(keyRows[0]!.summary)).toEqual({ after: { type: 'secret', expiresIn: '30d' } });
    expect(rows.every((row) => row.actor_label === 'cli')).toBe(true);
    expect(JSON.stringify(rows)).not.toContain(key.key);
    expect(rows.some((row) => row.action === 'points add')).toBe(false);
  });

  it('forgets an erased member\'s externalId in the audit log, keeping the entries', async () => {
    expect((await server.api.post('/api/v1/members', { externalId: 'erin@example.com' })).status).toBe(201);
    const publicId = (await server.api.get('/api/v1/members/erin%40example.com')).body.id;
    expect((await server.api.patch('/api/v1/members/erin%40example.com', { metadata: { tier: 'gold' } })).status).toBe(200);
    expect(cli(['members', 'erase', 'erin@example.com', '--project', server.projectId, '--yes']).status).toBe(0);
    const entries = server.ctx.db.prepare('SELECT action, target, summary FROM audit_log WHERE project_id = ?').all(server.projectId);
    expect(JSON.stringify(entries)).not.toContain('erin@example.com');
    expect(entries).toEqual(expect.arrayContaining([
      { action: 'POST /members', target: publicId, summary: JSON.stringify({ after: { externalId: publicId } }) },
      expect.objectContaining({ action: 'PATCH /members/:externalId', target: publicId }),
      expect.objectContaining({ action: 'members erase', target: publicId }),
    ]));
  });
});

describe('serve and the admin', { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'punchcard-admin-serve-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('says once, with its URL, how to make the first owner while no operator exists; with --no-admin serves none of it', async () => {
    const db = join(dir, 'fresh.db');
    const first = await spawnServer(db);
    try {
      expect(first.printed()).toContain(`The web admin is at ${first.url}/admin, and no one can sign in to it yet.`);
      expect(first.printed()).toMatch(new RegExp(`punchcard admin invite you@your-shop\\.example --role owner --public-url ${first.url}\\n`));
      expect((await client(first.url).get('/api/admin/session')).status).toBe(401);
    } finally {
      first.child.kill();
    }
    const off = await spawnServer(db, ['--no-admin']);
    try {
      expect(off.printed()).not.toContain('web admin');
      const res = await client(off.url).get('/api/admin/session');
      expect(res.status).toBe(404);
      expect((await fetch(`${off.url}/admin`)).status).toBe(404);
      expect((await fetch(`${off.url}/admin/members`)).status).toBe(404);
      const projectId = /Created project "Default" \((prj_\w+)\)/.exec(first.printed())![1]!;
      expect((await client(off.url).get(projectPath(projectId, 'members'))).status).toBe(404);
    } finally {
      off.child.kill();
    }
    expect(punchcard(['--db', db, 'admin', 'invite', 'me@shop.example', '--role', 'owner', '--json']).status).toBe(0);
    const later = await spawnServer(db, [], { PUNCHCARD_NO_ADMIN: 'false' });
    try {
      expect(later.printed()).not.toContain('no one can sign in');
      expect((await client(later.url).get('/api/admin/session')).status).toBe(401);
    } finally {
      later.child.kill();
    }
    const envOff = await spawnServer(db, [], { PUNCHCARD_NO_ADMIN: 'true' });
    try {
      expect((await client(envOff.url).get('/api/admin/session')).status).toBe(404);
    } finally {
      envOff.child.kill();
    }
  });
});
