// Data care (issue 23, items 16 and 19): backups readable by the owner only, and an erased
// member's personal data gone from every copy the database held, down to the file's bytes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { punchcard, punchcardJson } from '../helpers/cli.ts';
import { startTestServer, TestClock } from '../helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'punchcard-data-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('backups', () => {
  it('are written 0600, and a missing folder gets a one-line message naming it', () => {
    const source = join(dir, 'source.db');
    punchcardJson(['--db', source, 'projects', 'create', '--name', 'Shop']);
    const copy = join(dir, 'copy.db');
    expect(punchcard(['--db', source, 'backup', copy]).status).toBe(0);
    expect(statSync(copy).mode & 0o777).toBe(0o600);

    const missing = join(dir, 'no-such-folder', 'copy.db');
    const refused = punchcard(['--db', source, 'backup', missing]);
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe(`punchcard: No folder ${join(dir, 'no-such-folder')} to write the backup into: create it first (mkdir -p ${join(dir, 'no-such-folder')}) or choose another file.`);
  });
});

/** A receiver that fails every delivery and names the customer in its answer, as some do. */
async function echoingReceiver(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => res.writeHead(500).end(`unknown customer ${JSON.parse(Buffer.concat(chunks).toString('utf8')).data.externalId}`));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server };
}

describe('erasure', () => {
  it('leaves the email nowhere in the database file: ledger text, events, deliveries, stored answers', async () => {
    const server = await startTestServer({ clock: new TestClock(), webhooks: { runner: false, timeoutMs: 2_000 } });
    const receiver = await echoingReceiver();
    try {
      const email = 'ada.erasable@example.org';
      const { api } = server;
      expect((await api.post('/api/v1/webhooks', { url: receiver.url, events: ['member.created', 'member.updated', 'points.awarded'] })).status).toBe(201);
      const created = await api.post('/api/v1/members', { externalId: email, email, name: 'Ada Erasable', metadata: { note: `call ${email}` } },
        { headers: { 'idempotency-key': 'create-ada' } });
      expect(created.status).toBe(201);
      const award = await api.post(`/api/v1/members/${encodeURIComponent(email)}/points`,
        { amount: 5, description: `welcome ${email}`, metadata: { contact: email } }, { headers: { 'idempotency-key': 'award-ada' } });
      expect(award.status).toBe(200);
      // Deliveries are attempted and fail; their last error is a status class, never the receiver's echo.
      await server.deliveries.runDue();
      const db = server.ctx.db;
      expect(db.prepare("SELECT count(*) FROM webhook_deliveries WHERE last_error LIKE 'http_500%'").pluck().get()).toBeGreaterThan(0);
      expect(db.prepare("SELECT count(*) FROM webhook_deliveries WHERE last_error LIKE '%' || ? || '%'").pluck().get(email)).toBe(0);

      const erased = await api.delete(`/api/v1/members/${encodeURIComponent(email)}`);
      expect(erased.status).toBe(200);

      // The ledger and the events stay (amounts, ids), without the personal data.
      const erasedId = created.body.id as string;
      expect(db.prepare('SELECT description, metadata FROM transactions WHERE public_id = ?').get(award.body.transaction.id)).toEqual({ description: null, metadata: null });
      const awarded = JSON.parse(db.prepare("SELECT data FROM events WHERE type = 'points.awarded'").pluck().get() as string);
      expect(awarded).toMatchObject({ memberId: erasedId, externalId: erasedId, pointsAwarded: 5, description: null });
      // A replay of the award answers from the ledger, without the erased data.
      const replay = await api.post(`/api/v1/members/${encodeURIComponent(email)}/points`,
        { amount: 5, description: `welcome ${email}`, metadata: { contact: email } }, { headers: { 'idempotency-key': 'award-ada' } });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(JSON.stringify(replay.body)).not.toContain(email);

      db.exec('VACUUM');
      db.pragma('wal_checkpoint(TRUNCATE)');
      const file = readFileSync(server.dbPath);
      expect(file.includes(email)).toBe(false);
      expect(file.includes('Ada Erasable')).toBe(false);
      // The WAL after the checkpoint: empty, or at least without the email.
      expect(readFileSync(`${server.dbPath}-wal`).includes(email)).toBe(false);
      // And nothing was written in a form SQL can still find.
      const copy = new Database(server.dbPath, { readonly: true });
      try {
        for (const { name } of copy.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'members_search%'").all() as { name: string }[]) {
          const rows = copy.prepare(`SELECT * FROM "${name}"`).raw().all();
          expect(JSON.stringify(rows), name).not.toContain(email);
        }
      } finally {
        copy.close();
      }
    } finally {
      receiver.server.close();
      await server.stop();
    }
  });
});
