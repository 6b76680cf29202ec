import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueKey } from '../../src/domain/project/api-keys.ts';
import { createProject, rotateWidgetSecret } from '../../src/domain/project/projects.ts';
import { keyFingerprint, SecretBox } from '../../src/shared/secrets.ts';
import { openStore } from '../../src/db/store.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, TEST_MASTER_KEY, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let second: { projectId: string; secretKey: string; publishableKey: string; widgetSecret: string };
let rotatedSecret: string;
/** Every secret-key and widget-secret plaintext this file created. */
const plaintexts: string[] = [];

const box = () => new SecretBox(Buffer.from(TEST_MASTER_KEY, 'hex'));
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const storedWidgetSecret = (projectId: string) =>
  (server.ctx.db.prepare('SELECT widget_secret FROM projects WHERE id = ?').get(projectId) as { widget_secret: string }).widget_secret;

/** The database, its WAL and shared-memory files, and anything else Punchcard wrote beside them. */
function storedBytes(): { file: string; bytes: Buffer }[] {
  return readdirSync(server.dir).map((file) => ({ file, bytes: readFileSync(join(server.dir, file)) }));
}

function expectNowhereOnDisk(secrets: string[]) {
  const files = storedBytes();
  expect(files.map((f) => f.file)).toEqual(expect.arrayContaining(['punchcard.db', 'punchcard.db-wal']));
  for (const { file, bytes } of files) {
    for (const secret of secrets) {
      expect(bytes.includes(Buffer.from(secret, 'utf8')), `${file} holds a secret starting ${secret.slice(0, 12)}`).toBe(false);
      // Nor any long piece of it (the random part after the display prefix).
      expect(bytes.includes(Buffer.from(secret.slice(12), 'utf8')), `${file} holds the tail of ${secret.slice(0, 12)}…`).toBe(false);
    }
  }
}

beforeAll(async () => {
  server = await startTestServer();
  const created = createProject(server.ctx.db, server.ctx.box, { name: 'Second' }, server.clock.now());
  second = { projectId: created.project.id, secretKey: created.secretKey, publishableKey: created.publishableKey, widgetSecret: created.widgetSecret };
  const extra = issueKey(server.ctx.db, { projectId: server.projectId, type: 'secret', expiresAt: new Date(Date.now() + 3_600_000) }, server.clock.now());
  rotatedSecret = rotateWidgetSecret(server.ctx.db, server.ctx.box, created.project.id);
  plaintexts.push(server.secretKey, second.secretKey, extra.key, server.bootstrap!.widgetSecret, second.widgetSecret, rotatedSecret);

  // Use the keys for real traffic: creates, awards, idempotent replays, failures.
  for (const [api, id] of [[server.api, 'alice'], [client(server.url, second.secretKey), 'bob'], [client(server.url, extra.key), 'carol']] as const) {
    expect((await api.post('/api/v1/members', { externalId: id, email: `${id}@example.com` })).status).toBe(201);
    expect((await api.post(`/api/v1/members/${id}/points`, { amount: 10, idempotencyKey: `k-${id}` })).status).toBe(200);
    expect((await api.post(`/api/v1/members/${id}/points`, { amount: 10, idempotencyKey: `k-${id}` })).status).toBe(200);
    expect((await api.post(`/api/v1/members/${id}/points`, { amount: -1000 })).status).toBe(400);
  }
});
afterAll(() => server.stop());

describe('secrets at rest', () => {
  it('never writes a secret key or a widget secret into the SQLite files', () => {
    expectNowhereOnDisk(plaintexts);
  });

  it('still holds none of them after a checkpoint moves the WAL into the database', () => {
    server.ctx.db.pragma('wal_checkpoint(TRUNCATE)');
    expectNowhereOnDisk(plaintexts);
  });

  it('stores each key as its hex SHA-256 and a 12-character display prefix', () => {
    const rows = server.ctx.db.prepare('SELECT project_id, type, key_hash, key_prefix FROM api_keys').all() as {
      project_id: string; type: string; key_hash: string; key_prefix: string;
    }[];
    expect(rows).toHaveLength(5);
    for (const row of rows) {
      expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(row.key_prefix).toHaveLength(12);
      expect(row.key_prefix).toMatch(row.type === 'secret' ? /^sk_live_[0-9A-Za-z]{4}$/ : /^pk_live_[0-9A-Za-z]{4}$/);
    }
    for (const key of [server.secretKey, second.secretKey, second.publishableKey]) {
      expect(key).toMatch(/^(sk|pk)_live_[0-9A-Za-z]{32,}$/);
      const row = rows.find((r) => r.key_hash === sha256(key));
      expect(row, `no row for ${key.slice(0, 12)}`).toBeDefined();
      expect(row!.key_prefix).toBe(key.slice(0, 12));
    }
    expect(rows.filter((r) => r.key_hash === sha256(server.secretKey))[0]!.project_id).toBe(server.projectId);
    expect(rows.filter((r) => r.key_hash === sha256(second.secretKey))[0]!.project_id).toBe(second.projectId);
    // No column of api_keys holds the key itself.
    const all = JSON.stringify(server.ctx.db.prepare('SELECT * FROM api_keys').all());
    for (const key of [server.secretKey, second.secretKey]) expect(all).not.toContain(key.slice(12));
  });

  it('records only the display prefix as the actor of a change', () => {
    const actors = server.ctx.db.prepare('SELECT DISTINCT actor FROM transactions').all() as { actor: string }[];
    for (const { actor } of actors) expect(actor).toHaveLength(12);
    expect(actors.map((a) => a.actor)).toContain(server.secretKey.slice(0, 12));
  });

  it('encrypts the widget secret; it opens with the master key to the secret returned at creation', () => {
    const sealedDefault = storedWidgetSecret(server.projectId);
    expect(server.bootstrap!.widgetSecret).toMatch(/^whsk_[0-9A-Za-z]{32}$/);
    expect(sealedDefault).not.toContain(server.bootstrap!.widgetSecret);
    expect(sealedDefault).not.toContain(server.bootstrap!.widgetSecret.slice(5));
    expect(sealedDefault).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(box().open(sealedDefault)).toBe(server.bootstrap!.widgetSecret);

    // The second project's secret was rotated: the stored value opens to the new one, not the old.
    const sealedSecond = storedWidgetSecret(second.projectId);
    expect(rotatedSecret).toMatch(/^whsk_[0-9A-Za-z]{32}$/);
    expect(rotatedSecret).not.toBe(second.widgetSecret);
    expect(box().open(sealedSecond)).toBe(rotatedSecret);
  });

  it('seals with a fresh IV each time and refuses a tampered value or another key', () => {
    const sealed = storedWidgetSecret(server.projectId);
    const again = box().seal(server.bootstrap!.widgetSecret);
    expect(again).not.toBe(sealed);
    expect(box().open(again)).toBe(server.bootstrap!.widgetSecret);

    const [version, iv, tag, ciphertext] = sealed.split('.') as [string, string, string, string];
    const flipped = Buffer.from(ciphertext, 'base64url');
    flipped[0] = flipped[0]! ^ 1;
    expect(() => box().open([version, iv, tag, flipped.toString('base64url')].join('.'))).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
  });
});

describe('master key', () => {
  it('openStore on the database with a different master key rejects, naming the master key', async () => {
    const other = await startTestServer();
    const dbPath = other.dbPath;
    await other.close(); // the server only: the folder stays for the checks below
    try {
      const wrong = randomBytes(32).toString('hex');
      const fingerprint = keyFingerprint(Buffer.from(TEST_MASTER_KEY, 'hex'));
      await expect(openStore({ path: dbPath, masterKey: wrong }))
        .rejects.toThrow(`The master key in PUNCHCARD_MASTER_KEY (fingerprint ${keyFingerprint(Buffer.from(wrong, 'hex'))}) is not the one ${dbPath} was created with`);
      // Without PUNCHCARD_MASTER_KEY no key file is made (a new key could not read the secrets): it names the key it needs.
      await expect(openStore({ path: dbPath })).rejects.toThrow(`No master key for ${dbPath}, which holds encrypted secrets: Set PUNCHCARD_MASTER_KEY to the key with fingerprint ${fingerprint}`);
      expect(existsSync(`${dbPath}.key`)).toBe(false);
      // A malformed key is refused before it is used.
      await expect(openStore({ path: dbPath, masterKey: 'not-a-key' })).rejects.toThrow(/PUNCHCARD_MASTER_KEY must hold a 32-byte key/);

      const right = await openStore({ path: dbPath, masterKey: TEST_MASTER_KEY });
      try {
        const sealed = (right.db.prepare('SELECT widget_secret FROM projects').get() as { widget_secret: string }).widget_secret;
        expect(right.box.open(sealed)).toBe(other.bootstrap!.widgetSecret);
      } finally {
        right.close();
      }
      // The base64 form of the same key works too.
      const base64 = await openStore({ path: dbPath, masterKey: Buffer.from(TEST_MASTER_KEY, 'hex').toString('base64') });
      base64.close();
    } finally {
      rmSync(other.dir, { recursive: true, force: true });
    }
  });
});
