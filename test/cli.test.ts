import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import Database from 'better-sqlite3';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runInThisContext } from 'node:vm';
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

  it('never builds at start: it runs the bundle as built, even with a source newer than it', () => {
    const source = fileURLToPath(new URL('../src/shared/root.ts', import.meta.url));
    const bundle = fileURLToPath(new URL('../dist/punchcard.cjs', import.meta.url));
    const built = statSync(bundle).mtimeMs;
    const edited = new Date(Math.max(Date.now(), built + 1000));
    utimesSync(source, edited, edited);
    expect(punchcard(['--version']).status).toBe(0);
    expect(statSync(bundle).mtimeMs).toBe(built);
  });

  it('runs on its runtime dependencies alone: the bundle loads no build tool and no widget library', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    const bundle = readFileSync(new URL('../dist/punchcard.cjs', import.meta.url), 'utf8');
    const imported = new Set([...bundle.matchAll(/\brequire\("([^".][^"]*)"\)/g)].map((m) => m[1]!)
      .filter((name) => !name.startsWith('node:')).map((name) => name.split('/').slice(0, name.startsWith('@') ? 2 : 1).join('/')));
    expect([...imported].filter((name) => !(name in pkg.dependencies))).toEqual([]);
    for (const tool of ['esbuild', 'tsx', 'preact']) {
      expect(pkg.dependencies).not.toHaveProperty(tool);
      // esbuild heads each module it bundles with its path.
      expect(bundle).not.toContain(`// node_modules/${tool}/`);
    }
    // The widget the server serves was built beside the bundle.
    expect(existsSync(new URL('../dist/public/widget.js', import.meta.url))).toBe(true);
  });

  it('keeps the bundle ASCII, so V8 holds its text at one byte a character', () => {
    const bundle = readFileSync(new URL('../dist/punchcard.cjs', import.meta.url), 'utf8');
    // h3's router (rou3) ships a literal U+FFFC in a regular expression; the build escapes it.
    expect(bundle).toContain(String.raw`\x80-\ufffc`);
    expect(bundle.match(/[\u0080-\uffff].{0,40}/)?.[0]).toBeUndefined();
  });

  it('escapes a bundle to ASCII without changing what it means', async () => {
    // The build's own module (plain JavaScript, outside the type check).
    const { escapeToAscii } = await import(new URL('../cli/bundle.mjs', import.meta.url).href) as { escapeToAscii: (file: string) => void };
    const file = join(dir, 'ascii-bundle.cjs');
    // A range in a regular expression (as rou3's), an escaped character, an escaped backslash, an
    // astral character, a Unicode-mode regular expression and a comment.
    const source = 'module.exports = [/^[\\w$\\x80-\uFFFC]/.test("\u00E9"), "\\\u00D7 \\\\\u00D7 a\u00D7b", "\u{1F600}", /\u00D7/u.test("\u00D7")]; // \u00D7';
    const evaluate = (text: string) => runInThisContext(`(function (module) { ${text}\nreturn module.exports; })`)({}) as unknown[];
    writeFileSync(file, source);
    escapeToAscii(file);
    const escaped = readFileSync(file, 'utf8');
    expect(escaped).toMatch(/^[\x20-\x7e]*$/);
    expect(evaluate(escaped)).toEqual([true, '\u00D7 \\\u00D7 a\u00D7b', '\u{1F600}', true]);
    expect(evaluate(escaped)).toEqual(evaluate(source));
  });

  it('starts from the code cache the build trained, and only for the bundle it was made from', () => {
    // The test environment's NODE_OPTIONS (if any) would change V8's flags, which refuse any cache.
    const check = { PUNCHCARD_BUILD_CODE_CACHE: 'check', NODE_OPTIONS: '' };
    expect(punchcard(['--version'], check)).toMatchObject({ status: 0, stderr: 'code cache taken\n' });
    // A bundle of the same length with one character changed: V8 alone would take the cache.
    const checkout = mkdtempSync(join(tmpdir(), 'punchcard-stalecache-'));
    for (const file of ['package.json', 'cli/punchcard.mjs', 'cli/run-bundle.cjs', 'dist/punchcard.cjs', 'dist/punchcard.cache']) {
      mkdirSync(join(checkout, file, '..'), { recursive: true });
      copyFileSync(fileURLToPath(new URL(`../${file}`, import.meta.url)), join(checkout, file));
    }
    for (const folder of ['node_modules', 'docs']) symlinkSync(fileURLToPath(new URL(`../${folder}`, import.meta.url)), join(checkout, folder));
    const bundle = join(checkout, 'dist/punchcard.cjs');
    const source = readFileSync(bundle, 'utf8');
    expect(source).toContain('Punchcard listening on');
    writeFileSync(bundle, source.replace('Punchcard listening on', 'Punchcard listening at'));
    const stale = spawnSync(process.execPath, [join(checkout, 'cli/punchcard.mjs'), '--version'], { env: { ...process.env, ...check }, encoding: 'utf8' });
    const { version } = JSON.parse(readFileSync(join(checkout, 'package.json'), 'utf8'));
    expect(stale).toMatchObject({ status: 0, stdout: `${version}\n`, stderr: 'code cache refused\n' });
    rmSync(checkout, { recursive: true, force: true });
  });

  it('names the bundle in stack traces, and src/ with NODE_OPTIONS=--enable-source-maps', () => {
    const hook = fileURLToPath(new URL('./fixtures/stack-at-start.mjs', import.meta.url));
    const frame = (options: string) => /^stack-at-start (.*)$/m.exec(punchcard(['--version'], { NODE_OPTIONS: options }).stderr)?.[1];
    expect(frame(`--import ${hook}`)).toMatch(/dist\/punchcard\.cjs:\d+:\d+\)$/);
    expect(frame(`--import ${hook} --enable-source-maps`)).toContain(`(${fileURLToPath(new URL('../src/shared/assets.ts', import.meta.url))}:`);
  });

  it('says how to build when the bundle is missing, instead of building it', () => {
    const checkout = mkdtempSync(join(tmpdir(), 'punchcard-nobundle-'));
    mkdirSync(join(checkout, 'cli'));
    copyFileSync(fileURLToPath(new URL('../cli/punchcard.mjs', import.meta.url)), join(checkout, 'cli/punchcard.mjs'));
    const result = spawnSync(process.execPath, [join(checkout, 'cli/punchcard.mjs'), '--version'], { encoding: 'utf8' });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('run `npm run build`');
    expect(existsSync(join(checkout, 'dist'))).toBe(false);
    rmSync(checkout, { recursive: true, force: true });
  });

  it('explains bad input in one line and exits 1', () => {
    const badType = punchcard(['--db', db, 'keys', 'create', '--project', project.project.id, '--type', 'admin']);
    expect(badType.status).not.toBe(0);
    expect(badType.stderr).toMatch(/secret, publishable/);
    const badDuration = punchcard(['--db', db, 'keys', 'create', '--project', project.project.id, '--type', 'secret', '--expires-in', 'soon']);
    expect(badDuration.status).toBe(1);
    expect(badDuration.stderr).toMatch(/not a duration/);
    for (const args of [['keys', 'list'], ['members', 'list'], ['members', 'show', 'm'], ['project', 'show'], ['points', 'add', '--member', 'm', '--amount', '5']]) {
      const unknownProject = punchcard(['--db', db, ...args, '--project', 'prj_nope']);
      expect(unknownProject).toMatchObject({ status: 1, stdout: '', stderr: 'punchcard: no project prj_nope; `punchcard projects list` shows them\n' });
    }
    const unknownKey = punchcard(['--db', db, 'keys', 'revoke', 'key_nope']);
    expect(unknownKey.status).toBe(1);
    expect(unknownKey.stderr).toMatch(/No API key with id "key_nope"/);
  });

  it('migrates, reports status, adjusts points, expires and checks the ledger', () => {
    expect(punchcard(['--db', db, 'migrate']).stdout).toMatch(/up to date/);
    expect(punchcard(['--db', db, 'migrate', '--status']).stdout).toMatch(/1\s+initial\s+\d{4}-/);
    // The CLI shares the domain functions with the API: create through the API later, points here.
    expect(punchcard(['--db', db, 'points', 'add', '--project', project.project.id, '--member', 'ghost', '--amount', '5']).status).toBe(1);
    expect(punchcardJson(['--db', db, 'expire'])).toEqual({ members: 0, points: 0, released: { members: 0, points: 0 } });
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
    // One member, as an operator answering a shopper sees it: balance, level, latest entries first.
    const shown = punchcardJson(['--db', fresh, 'members', 'show', 'walk-in', '--project', projects[0].id, '--history', '1']);
    expect(shown.member).toMatchObject({ externalId: 'walk-in', points: 10, totalPointsEarned: 12, level: 0 });
    expect(shown.transactions).toEqual([expect.objectContaining({ amount: -2, balance: 10, actor: 'cli' })]);
    const text = punchcard(['--db', fresh, 'members', 'show', 'walk-in', '--project', projects[0].id]);
    expect(text.stdout).toMatch(/^ {2}points\s+10$/m);
    expect(text.stdout).toMatch(/latest transactions \(2, newest first\)\ncreatedAt\s+amount\s+balance[^\n]*\n\S+\s+-2\s+10\s+DEDUCTED[^\n]*\n\S+\s+12\s+12\s+EARNED/);
    expect(punchcard(['--db', fresh, 'members', 'show', 'nobody', '--project', projects[0].id])).toMatchObject({
      status: 1, stderr: 'punchcard: No member with externalId "nobody" in this project\n' });
    expect(punchcard(['--db', fresh, 'members', 'show', 'walk-in', '--project', projects[0].id, '--history', '101']).stderr).toMatch(/at most 100/);
    expect(punchcard(['--db', fresh, 'doctor']).status).toBe(0);
  });
});

describe('punchcard backup', () => {
  it('leaves an empty database empty when the port is taken, so the next start still shows the keys', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const fresh = join(dir, 'port-taken.db');
    try {
      const port = (taken.address() as AddressInfo).port;
      const failed = punchcard(['serve', '--db', fresh, '--port', String(port)]);
      expect(failed.status).toBe(1);
      // One line naming the port and the flag, no stack trace.
      expect(failed.stderr).toBe(`punchcard: port ${port} on 127.0.0.1 is already in use; stop what uses it or choose another with --port (or PUNCHCARD_PORT)\n`);
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

describe('punchcard on the wrong database', () => {
  const noKey = { PUNCHCARD_MASTER_KEY: '' }; // empty counts as unset: the key comes from the file beside the database

  it('refuses a missing or empty database instead of creating one, and says how to point at the right one', () => {
    const missing = join(dir, 'typo', 'punchcard.db');
    for (const args of [['doctor'], ['projects', 'list'], ['keys', 'list', '--project', 'prj_x'], ['backup', join(dir, 'b.db')], ['migrate', '--status'], ['replicate', 'status']]) {
      const result = punchcard(['--db', missing, ...args]);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`punchcard: no database at ${missing}. Pass --db PATH or set PUNCHCARD_DB`);
      expect(result.stderr).toContain('only serve, migrate, projects create and seed --demo create a new one');
    }
    expect(existsSync(missing)).toBe(false);
    expect(existsSync(join(dir, 'typo'))).toBe(false);
    // The default path is relative to the working folder, and PUNCHCARD_DB names another.
    expect(punchcard(['doctor'], { PUNCHCARD_DB: missing }).stderr).toContain(`no database at ${missing}`);
    const empty = join(dir, 'empty.db');
    writeFileSync(empty, '');
    expect(punchcard(['--db', empty, 'doctor']).stderr).toContain(`no database at ${empty} (the file is empty)`);
    expect(readFileSync(empty, 'utf8')).toBe('');
  });

  it('lets only serve, migrate and projects create make a database, and says so in --help', () => {
    const help = (...args: string[]) => punchcard([...args, '--help']).stdout.replace(/\s+/g, ' ');
    for (const creating of [['serve'], ['migrate'], ['projects', 'create']]) expect(help(...creating)).toContain('creates the database if there is none');
    expect(help('doctor')).not.toContain('creates the database');
    const migrated = join(dir, 'migrated.db');
    expect(punchcard(['--db', migrated, 'migrate']).stdout).toMatch(/Applied \d+ migration/);
    // A schema without a project is no server's database: doctor does not call it healthy.
    const doctor = punchcard(['--db', migrated, 'doctor']);
    expect(doctor.status).toBe(1);
    expect(doctor.stdout).toMatch(/Projects: none; no server has started on/);
  });

  it('refuses a file that is not a Punchcard database', () => {
    const notOurs = join(dir, 'not-ours.db');
    const other = new Database(notOurs);
    other.exec('CREATE TABLE notes (text TEXT)');
    other.close();
    const result = punchcard(['--db', notOurs, 'projects', 'list']);
    expect(result).toMatchObject({ status: 1, stderr: `punchcard: ${notOurs} is not a Punchcard database (it has no schema_migrations table); check --db or PUNCHCARD_DB.\n` });
    const untouched = new Database(notOurs, { readonly: true });
    expect(untouched.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()).toEqual(['notes']);
    untouched.close();
  });

  it('never makes a new key for a database that holds encrypted secrets, and names the key it needs', () => {
    const original = join(dir, 'keyed.db');
    const created = JSON.parse(punchcard(['--db', original, 'projects', 'create', '--name', 'Keyed', '--json'], noKey).stdout);
    const key = readFileSync(`${original}.key`, 'utf8').trim();
    const fingerprint = JSON.parse(punchcard(['--db', original, 'doctor', '--json'], noKey).stdout).masterKey.fingerprint;
    expect(fingerprint).toMatch(/^[0-9a-f]{16}$/);
    expect(readFileSync(original).includes(Buffer.from(key))).toBe(false);
    // A restore without the key file: every command refuses, names the fingerprint, and makes no key.
    const restored = join(dir, 'restored.db');
    expect(punchcard(['--db', original, 'backup', restored], noKey).status).toBe(0);
    for (const args of [['doctor'], ['projects', 'list'], ['project', 'show', '--project', created.project.id]]) {
      const result = punchcard(['--db', restored, ...args], noKey);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain(`No master key for ${restored}, which holds encrypted secrets: Set PUNCHCARD_MASTER_KEY to the key with fingerprint ${fingerprint}, or put that key in ${restored}.key`);
    }
    expect(existsSync(`${restored}.key`)).toBe(false);
    const serve = punchcard(['serve', '--db', restored, '--port', '0'], noKey);
    expect(serve.status).toBe(1);
    expect(serve.stderr).toContain(`fingerprint ${fingerprint}`);
    expect(existsSync(`${restored}.key`)).toBe(false);
    // The wrong key: both fingerprints, never the key.
    const wrong = punchcard(['--db', restored, 'doctor'], { PUNCHCARD_MASTER_KEY: 'ab'.repeat(32) });
    expect(wrong.stderr).toMatch(new RegExp(`The master key in PUNCHCARD_MASTER_KEY \\(fingerprint [0-9a-f]{16}\\) is not the one ${restored} was created with\\. Set PUNCHCARD_MASTER_KEY to the key with fingerprint ${fingerprint}`));
    expect(wrong.stderr).not.toContain('ab'.repeat(32));
    // The right key, by variable or by file, opens it.
    expect(punchcard(['--db', restored, 'doctor'], { PUNCHCARD_MASTER_KEY: key }).status).toBe(0);
    writeFileSync(`${restored}.key`, `${key}\n`, { mode: 0o600 });
    expect(punchcard(['--db', restored, 'doctor'], noKey).status).toBe(0);
  });

  it('prints a project as a readable summary unless --json', () => {
    const file = join(dir, 'summary.db');
    const created = JSON.parse(punchcard(['--db', file, 'projects', 'create', '--name', 'Summary Shop', '--json']).stdout);
    const shown = punchcard(['--db', file, 'project', 'show', '--project', created.project.id]);
    expect(shown.status).toBe(0);
    expect(shown.stdout).not.toContain('{');
    expect(shown.stdout).toMatch(/^ {2}name +Summary Shop$/m);
    expect(shown.stdout).toMatch(/^ {2}timezone +UTC$/m);
    expect(shown.stdout).toMatch(/^widget$/m);
    expect(shown.stdout).toMatch(/^ {2}features +on: points, .*; off: /m);
    expect(JSON.parse(punchcard(['--db', file, 'project', 'show', '--project', created.project.id, '--json']).stdout).name).toBe('Summary Shop');
  });
});

describe('one server per database file', () => {
  it('refuses a second server on the same file in one line, and starts again once the first is killed', async () => {
    const file = join(dir, 'single.db');
    const first = await spawnServer(file);
    try {
      const second = punchcard(['serve', '--db', file, '--port', '0']);
      expect(second.status).toBe(1);
      expect(second.stderr).toBe(`punchcard: another Punchcard server is already running on ${file} (it holds ${file}.lock); stop it first, or give this one its own --db\n`);
      // Nor does restore --force replace the file under it.
      const restore = punchcard(['restore', '--from', `file://${join(dir, 'no-replica')}`, '--db', file, '--force']);
      expect(restore).toMatchObject({ status: 1, stderr: `punchcard: A server is running on ${file}; stop it first.\n` });
    } finally {
      first.child.kill('SIGKILL'); // the lock dies with the process: no stale lock after a crash
      await new Promise((resolve) => first.child.once('exit', resolve));
    }
    const again = await spawnServer(file);
    again.child.kill('SIGTERM');
    await new Promise((resolve) => again.child.once('exit', resolve));
  });
});
