import { mkdtempSync, readFileSync, rmSync, statSync, utimesSync } from 'node:fs';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from './helpers/http.ts';
import { punchcard, punchcardJson, spawnServer } from './helpers/cli.ts';

let dir: string;
let db: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-cli-'));
  db = join(dir, 'cli.db');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('punchcard CLI', () => {
  let project: { project: { id: string; name: string }; secretKey: string; publishableKey: string; widgetSecret: string };

  it('creates a project and prints its keys once, as JSON', () => {
    project = punchcardJson(['--db', db, 'projects', 'create', '--name', 'Corner Shop']);
    expect(Object.keys(project).sort()).toEqual(['project', 'publishableKey', 'secretKey', 'widgetSecret']);
    expect(Object.keys(project.project).sort()).toEqual(['id', 'name']);
    expect(project.project.name).toBe('Corner Shop');
    expect(project.secretKey).toMatch(/^sk_live_[0-9A-Za-z]{32}$/);
    expect(project.publishableKey).toMatch(/^pk_live_[0-9A-Za-z]{32}$/);
    expect(project.widgetSecret).toMatch(/^whsk_[0-9A-Za-z]{32}$/);
    const table = punchcard(['--db', db, 'projects', 'list']);
    expect(table.stdout).toContain(project.project.id);
    expect(table.stdout).toContain('Corner Shop');
  });

  it('creates, lists and revokes keys without ever listing a full key', () => {
    const key = punchcardJson(['--db', db, 'keys', 'create', '--project', project.project.id, '--type', 'secret', '--expires-in', '30d']);
    expect(key.key).toMatch(/^sk_live_/);
    expect(new Date(key.expiresAt).getTime() - new Date(key.createdAt).getTime()).toBe(30 * 86_400_000);
    const listed = punchcard(['--db', db, 'keys', 'list', '--project', project.project.id]);
    expect(listed.status).toBe(0);
    expect(listed.stdout).toContain(key.key.slice(0, 12));
    expect(listed.stdout).not.toContain(key.key);
    expect(listed.stdout).not.toContain(project.secretKey);
    const revoked = punchcardJson(['--db', db, 'keys', 'revoke', key.id]);
    expect(revoked.revokedAt).not.toBeNull();
    const keys = punchcardJson(['--db', db, 'keys', 'list', '--project', project.project.id]).keys;
    expect(keys).toHaveLength(3);
    expect(JSON.stringify(keys)).not.toContain(key.key);
  });

  it('prints the package version', () => {
    const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(punchcard(['--version'])).toMatchObject({ status: 0, stdout: `${version}\n` });
  });

  it('rebuilds the bundle it runs when a source is newer, so an edit never runs stale code', () => {
    const source = fileURLToPath(new URL('../src/root.ts', import.meta.url));
    const bundle = fileURLToPath(new URL('../dist/punchcard.mjs', import.meta.url));
    const edited = new Date();
    utimesSync(source, edited, edited);
    expect(punchcard(['--version']).status).toBe(0);
    expect(statSync(bundle).mtimeMs).toBeGreaterThanOrEqual(edited.getTime());
  });

  it('explains bad input in one line and exits 1', () => {
    const badType = punchcard(['--db', db, 'keys', 'create', '--project', project.project.id, '--type', 'admin']);
    expect(badType.status).not.toBe(0);
    expect(badType.stderr).toMatch(/secret, publishable/);
    const badDuration = punchcard(['--db', db, 'keys', 'create', '--project', project.project.id, '--type', 'secret', '--expires-in', 'soon']);
    expect(badDuration.status).toBe(1);
    expect(badDuration.stderr).toMatch(/not a duration/);
    const unknownProject = punchcard(['--db', db, 'keys', 'list', '--project', 'prj_nope']);
    expect(unknownProject.status).toBe(0); // an unknown project simply has no keys
    const unknownKey = punchcard(['--db', db, 'keys', 'revoke', 'key_nope']);
    expect(unknownKey.status).toBe(1);
    expect(unknownKey.stderr).toMatch(/No API key with id "key_nope"/);
  });

  it('migrates, reports status, adjusts points, expires and checks the ledger', () => {
    expect(punchcard(['--db', db, 'migrate']).stdout).toMatch(/up to date/);
    expect(punchcard(['--db', db, 'migrate', '--status']).stdout).toMatch(/1\s+initial\s+\d{4}-/);
    // The CLI shares the domain functions with the API: create through the API later, points here.
    expect(punchcard(['--db', db, 'points', 'add', '--project', project.project.id, '--member', 'ghost', '--amount', '5']).status).toBe(1);
    expect(punchcardJson(['--db', db, 'expire'])).toEqual({ members: 0, points: 0 });
    const doctor = punchcard(['--db', db, 'doctor']);
    expect(doctor.status).toBe(0);
    expect(doctor.stdout).toMatch(/integrity: ok/);
  });

  it('serves the API, bootstrapping a Default project on an empty database', async () => {
    const fresh = join(dir, 'fresh.db');
    const { child, url, output } = await spawnServer(fresh);
    try {
      const secretKey = /secret key\s+(sk_live_\w+)/.exec(output())?.[1];
      expect(secretKey).toBeDefined();
      const api = client(url, secretKey);
      expect((await api.post('/api/v1/members', { externalId: 'walk-in' })).status).toBe(201);
      expect((await api.post('/api/v1/members/walk-in/points', { amount: 12 })).body.member.points).toBe(12);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    // The CLI and the server share one file: what the API wrote, the CLI sees and adjusts.
    const projects = punchcardJson(['--db', fresh, 'projects', 'list']).projects;
    expect(projects.map((p: { name: string }) => p.name)).toEqual(['Default']);
    const added = punchcardJson(['--db', fresh, 'points', 'add', '--project', projects[0].id, '--member', 'walk-in', '--amount', '-2']);
    expect(added.transaction).toMatchObject({ amount: -2, type: 'DEDUCTED', actor: 'cli' });
    expect(added.member.points).toBe(10);
    const members = punchcardJson(['--db', fresh, 'members', 'list', '--project', projects[0].id]);
    expect(members.members.map((m: { externalId: string }) => m.externalId)).toEqual(['walk-in']);
    expect(punchcard(['--db', fresh, 'doctor']).status).toBe(0);
  });
});

describe('punchcard backup', () => {
  it('leaves an empty database empty when the port is taken, so the next start still shows the keys', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const fresh = join(dir, 'port-taken.db');
    try {
      const failed = punchcard(['serve', '--db', fresh, '--port', String((taken.address() as AddressInfo).port)]);
      expect(failed.status).toBe(1);
      expect(failed.stderr).toContain('EADDRINUSE');
    } finally {
      taken.close();
    }
    expect(punchcardJson(['--db', fresh, 'projects', 'list']).projects).toEqual([]);
    const server = await spawnServer(fresh);
    try {
      expect(server.output()).toMatch(/Created project "Default"[\s\S]*sk_live_/);
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
    }
  });

  it('writes a consistent copy that opens with the same keys and ledger', () => {
    const source = join(dir, 'backup-source.db');
    const created = punchcardJson(['--db', source, 'projects', 'create', '--name', 'Copied']);
    const copy = join(dir, 'copy.db');
    const result = punchcard(['--db', source, 'backup', copy]);
    expect(result.status).toBe(0);
    expect(punchcard(['--db', source, 'backup', copy]).stderr).toMatch(/already exists/);
    // The copy needs the same master key (tests pass it via PUNCHCARD_MASTER_KEY), then holds the same project.
    const projects = punchcardJson(['--db', copy, 'projects', 'list']).projects;
    expect(projects.map((p: { id: string }) => p.id)).toEqual([created.project.id]);
    expect(punchcard(['--db', copy, 'doctor']).status).toBe(0);
  });
});
