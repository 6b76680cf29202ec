// The single executable (`npm run build:binary` → dist/punchcard), copied alone into an empty
// folder: no Node, no node_modules, no checkout beside it. CI builds it before the tests; a
// developer without a build sees this file skipped, with the command to run.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenDocLinks } from './helpers/docs.ts';

const BUILT = fileURLToPath(new URL('../dist/punchcard', import.meta.url));
const built = existsSync(BUILT);
if (!built && process.env.CI) throw new Error('dist/punchcard is missing: CI runs `npm run build:binary` before the tests');

let folder: string;
let env: NodeJS.ProcessEnv;
const binary = () => join(folder, 'punchcard');
const data = () => join(folder, 'data');
const db = () => join(data(), 'punchcard.db');

/** Every file below `dir`, relative to it. */
const filesBelow = (dir: string): string[] => readdirSync(dir, { recursive: true, withFileTypes: true })
  .filter((entry) => !entry.isDirectory())
  .map((entry) => relative(dir, join(entry.parentPath, entry.name)))
  .sort();

/** Starts `serve --port 0 [args]` from the binary; resolves with its URL and a stop() that resolves with how it exited. */
function serve(args: string[] = []): Promise<{ url: string; stop: () => Promise<unknown> }> {
  const server = spawn(binary(), ['--db', db(), 'serve', '--port', '0', ...args], { cwd: folder, env });
  const exited = new Promise((resolve) => server.once('exit', (code, signal) => resolve({ code, signal })));
  let printed = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      printed += chunk.toString();
      const url = /^Punchcard listening on (https?:\/\/\S+)/m.exec(printed)?.[1];
      if (url) resolve({ url, stop: () => { server.kill('SIGTERM'); return exited; } });
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', onData);
    server.once('exit', () => reject(new Error(`the binary exited before listening: ${printed}`)));
  });
}

function run(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync(binary(), ['--db', db(), ...args], { cwd: folder, env, encoding: 'utf8', timeout: 30_000 });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

const notBuilt = 'dist/punchcard is not built here: `npm run build:binary` makes it (CI does, before the tests)';
describe.skipIf(!built)('the single executable, alone in an empty folder', { timeout: 60_000, meta: built ? {} : { skipReason: notBuilt } }, () => {
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'punchcard-binary-'));
    copyFileSync(BUILT, binary());
    // Its own temporary folder and home, both empty, so what it leaves there can be seen; no
    // NODE_OPTIONS from the test runner (an executable built on Node still reads it).
    mkdirSync(join(folder, 'tmp'));
    mkdirSync(join(folder, 'home'));
    env = { PATH: '/usr/bin:/bin', HOME: join(folder, 'home'), TMPDIR: join(folder, 'tmp'), PUNCHCARD_LOG: 'silent' };
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  it('creates a project, serves it, awards points over HTTP and reads them back, writing only in its data folder', async () => {
    expect(run(['--version']).stdout.trim()).toMatch(/^\d+\.\d+\.\d+$/);
    // `doctor` right after the build (docs/install.md): the program alone, no database yet, none made.
    const fresh = spawnSync(binary(), ['doctor'], { cwd: folder, env, encoding: 'utf8' });
    expect(fresh.status, fresh.stderr).toBe(0);
    expect(fresh.stdout).toMatch(/^Program: Punchcard \d+\.\d+\.\d+ \(single executable\) on Node 22\.\d+\.\d+, SQLite 3\.\d+\.\d+, \d+ migrations\.\nDatabase: none yet at /);
    expect(filesBelow(folder)).toEqual(['punchcard']);
    const created = run(['projects', 'create', '--name', 'Shop', '--json']);
    expect(created.stderr).toBe('');
    const { secretKey, project } = JSON.parse(created.stdout) as { secretKey: string; project: { id: string } };

    const { url, stop } = await serve();

    const headers = { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' };
    const member = await fetch(`${url}/api/v1/members`, { method: 'POST', headers, body: JSON.stringify({ externalId: 'alice' }) });
    expect(member.status).toBe(201);
    const award = await fetch(`${url}/api/v1/members/alice/points`, { method: 'POST', headers, body: JSON.stringify({ amount: 50, description: 'First visit' }) });
    expect(award.status).toBe(200);
    const points = await (await fetch(`${url}/api/v1/members/alice/points`, { headers })).json() as { points: number };
    expect(points.points).toBe(50);
    // The embedded assets: the widget bundle and the docs pages.
    const widget = await fetch(`${url}/widget.js`);
    expect(widget.status).toBe(200);
    expect((await widget.text()).length).toBeGreaterThan(1000);
    expect((await fetch(`${url}/docs/api`)).status).toBe(200);
    // The admin: its HTML at any of its paths, and the scripts it names.
    const admin = await fetch(`${url}/admin/sign-in`);
    expect(admin.status).toBe(200);
    const entry = /src="(\/admin\/assets\/main\.\w+\.js)"/.exec(await admin.text())?.[1];
    expect((await fetch(`${url}${entry}`)).status).toBe(200);
    // Every link of the guides works here too: the README, the benchmark figures and the units it carries.
    expect(await brokenDocLinks(url)).toEqual([]);
    // The API reference: the document made from the routes, and Redoc's bundle carried inside.
    expect((await (await fetch(`${url}/api/v1/openapi.json`)).json()).openapi).toBe('3.1.0');
    expect((await fetch(`${url}/docs/assets/redoc.standalone.js`)).status).toBe(200);
    expect((await (await fetch(`${url}/healthz`)).json())).toMatchObject({ status: 'ok', database: 'ok' });

    expect(await stop()).toEqual({ code: 0, signal: null });

    // Commands that read the file it wrote: the ledger audit, the member list, a backup.
    expect(run(['doctor']).status).toBe(0);
    expect(run(['members', 'list', '--project', project.id, '--json']).stdout).toContain('alice');
    const backup = run(['backup', join(data(), 'copy.db')]);
    expect(backup.status, backup.stderr).toBe(0);

    // Besides itself, only the data folder: nothing in its temporary folder (the addon it loads is
    // removed once loaded), its home or the folder it runs in.
    const outside = filesBelow(folder).filter((file) => !file.startsWith('data/'));
    expect(outside).toEqual(['punchcard']);
    expect(filesBelow(data())).toContain('punchcard.db');
  });

  it('serves --https with the listhen it carries, its certificate in the data folder', async () => {
    const { url, stop } = await serve(['--https']);
    expect(url).toMatch(/^https:/);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${url}/healthz`, { rejectUnauthorized: false }, (res) => {
        res.resume();
        res.once('end', () => resolve(res.statusCode ?? 0));
      });
      req.once('error', reject);
      req.end();
    });
    expect(status).toBe(200);
    expect(await stop()).toEqual({ code: 0, signal: null });
    expect(filesBelow(data())).toContain('punchcard-localhost.crt');
    expect(filesBelow(folder).filter((file) => !file.startsWith('data/'))).toEqual(['punchcard']);
  });
});
