import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../src/db/store.ts';
import { spawnServer } from './helpers/cli.ts';
import { client } from './helpers/http.ts';
import { startReceiver } from './helpers/receiver.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'punchcard-webhook-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function readDb<T>(path: string, read: (db: Awaited<ReturnType<typeof openStore>>['db']) => T): Promise<T> {
  const store = await openStore({ path, masterKey: TEST_MASTER_KEY });
  try {
    return read(store.db);
  } finally {
    store.close();
  }
}

const exited = (child: { exitCode: number | null; signalCode: string | null; once: (e: 'exit', f: () => void) => void }) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', resolve)));

describe('a crash while deliveries are due and in flight', () => {
  it('delivers every event at least once after restart, and invents none', async () => {
    // A slow receiver, so that at the crash some deliveries are in flight and more are waiting.
    // (1 s per answer, at most 32 at once per endpoint: about 30 a second, so the 325 events take
    // 10 s to drain, longer than the awards take even on a slow machine.)
    const receiver = await startReceiver(() => ({ status: 200, delayMs: 1_000 }));
    const db = join(dir, 'crash.db');
    const first = await spawnServer(db, ['--allow-insecure-webhooks']);
    const secretKey = /secret key\s+(sk_live_\w+)/.exec(first.output())![1]!;
    const api = client(first.url, secretKey);
    try {
      expect((await api.post('/api/v1/webhooks', { url: receiver.url, events: ['member.created', 'points.awarded'] })).status).toBe(201);
      for (let i = 0; i < 5; i++) expect((await api.post('/api/v1/members', { externalId: `m${i}` })).status).toBe(201);
      const acknowledged: string[] = [];
      await Promise.all(Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; i < 40; i++) {
          const res = await api.post(`/api/v1/members/m${(i + w) % 5}/points`, { amount: 1 });
          if (res.status === 200) acknowledged.push(res.body.transaction.id);
        }
      }));
      expect(acknowledged).toHaveLength(320);
      await receiver.waitFor(1);
      first.child.kill('SIGKILL');
      await exited(first.child);

      const atCrash = await readDb(db, (conn) => ({
        events: conn.prepare('SELECT public_id FROM events').pluck().all() as string[],
        awarded: conn.prepare("SELECT json_extract(data, '$.transactionId') FROM events WHERE type = 'points.awarded'").pluck().all() as string[],
        inFlight: conn.prepare("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending' AND locked_until IS NOT NULL").pluck().get() as number,
        waiting: conn.prepare("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending' AND locked_until IS NULL").pluck().get() as number,
      }));
      expect(atCrash.events).toHaveLength(325);
      expect(new Set(atCrash.awarded)).toEqual(new Set(acknowledged));
      expect(atCrash.inFlight, 'deliveries were in flight at the crash').toBeGreaterThan(0);
      expect(atCrash.waiting, 'deliveries were waiting at the crash').toBeGreaterThan(0);
      const receivedBeforeCrash = receiver.received.length;
      expect(receivedBeforeCrash).toBeLessThan(325);

      // Restart: the dead process's leases are taken over at once, the rest follow.
      const second = await spawnServer(db, ['--allow-insecure-webhooks']);
      try {
        const seen = () => new Set(receiver.received.map((r) => r.body.id as string));
        // Every row still pending at the crash is sent once more after the restart (at least once).
        await receiver.waitFor(receivedBeforeCrash + atCrash.inFlight + atCrash.waiting);
        expect(atCrash.events.filter((id) => !seen().has(id))).toEqual([]);
        // Nothing invented: every request carried a stored event, and the restart added no events.
        expect([...seen()].filter((id) => !atCrash.events.includes(id))).toEqual([]);
        expect(receiver.received.length).toBeGreaterThanOrEqual(325);
      } finally {
        // A graceful stop waits for the attempts in flight to record their outcome.
        second.child.kill('SIGTERM');
        await exited(second.child);
      }
      const after = await readDb(db, (conn) => conn.prepare('SELECT status, count(*) AS n FROM webhook_deliveries GROUP BY status').all());
      expect(after).toEqual([{ status: 'delivered', n: 325 }]);
    } finally {
      if (first.child.exitCode === null && first.child.signalCode === null) first.child.kill('SIGKILL');
      await receiver.close();
    }
  }, 90_000);
});

describe('serve --no-webhook-runner (for the benches: queue deliveries, never send them)', () => {
  it('queues deliveries and leaves them alone; without the flag the same start takes them over and sends them', async () => {
    const receiver = await startReceiver(() => 200);
    const db = join(dir, 'no-runner.db');
    const sql = (work: (conn: Database.Database) => unknown) => {
      const conn = new Database(db);
      try {
        return work(conn);
      } finally {
        conn.close();
      }
    };
    const lease = () => sql((conn) => conn.prepare("SELECT status || ' ' || coalesce(locked_until, '-') FROM webhook_deliveries").pluck().all());
    const stop = async (server: Awaited<ReturnType<typeof spawnServer>>) => {
      server.child.kill('SIGTERM');
      await exited(server.child);
    };
    try {
      const first = await spawnServer(db, ['--allow-insecure-webhooks', '--no-webhook-runner']);
      const api = client(first.url, /secret key\s+(sk_live_\w+)/.exec(first.output())![1]!);
      expect((await api.post('/api/v1/webhooks', { url: receiver.url, events: ['member.created'] })).status).toBe(201);
      expect((await api.post('/api/v1/members', { externalId: 'ann' })).status).toBe(201);
      await stop(first);
      // As if a process that died held the delivery: a runner takes such leases over before the server prints its URL.
      sql((conn) => conn.prepare("UPDATE webhook_deliveries SET locked_until = '2099-01-01T00:00:00.000Z'").run());

      const second = await spawnServer(db, ['--allow-insecure-webhooks', '--no-webhook-runner']);
      expect(lease()).toEqual(['pending 2099-01-01T00:00:00.000Z']);
      await stop(second);

      const third = await spawnServer(db, ['--allow-insecure-webhooks']);
      expect(lease()).not.toEqual(['pending 2099-01-01T00:00:00.000Z']);
      await receiver.waitFor(1);
      expect(receiver.received.map((r) => r.body.type)).toEqual(['member.created']);
      await stop(third);
    } finally {
      await receiver.close();
    }
  }, 60_000);
});
