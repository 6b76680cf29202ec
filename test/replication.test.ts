import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { processAlive, readStatusRecord, type ReplicationStatus } from '../src/replication/status.ts';
import { openStore } from '../src/db/store.ts';
import { punchcard, punchcardJson, spawnServer } from './helpers/cli.ts';
import { client } from './helpers/http.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'punchcard-replication-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Short intervals keep the tests fast; production keeps Litestream's 1 s. */
const REPLICATE = (url: string) => ['--replicate', url, '--replicate-interval', '100ms'];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Litestream is an outside program with no event to await, so this asks again every 50 ms until
 * `probe` holds; the test's own timeout bounds the wait (`what` names it in the test's title).
 */
async function until<T>(_what: string, probe: () => T | Promise<T>): Promise<NonNullable<T>> {
  for (;;) {
    const value = await probe();
    if (value) return value;
    await sleep(50);
  }
}


const exited = (child: ChildProcess) =>
  new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)));

/** The ids of every transaction in a database, after checking its ledger invariant. */
async function transactionIds(db: string): Promise<Set<string>> {
  const store = await openStore({ path: db, masterKey: TEST_MASTER_KEY });
  try {
    expect(checkLedger(store.db)).toEqual([]);
    return new Set(store.db.prepare('SELECT public_id FROM transactions').pluck().all() as string[]);
  } finally {
    store.close();
  }
}

const secretKey = (output: string) => /secret key\s+(sk_live_\w+)/.exec(output)![1]!;

// Each test runs several CLI commands and servers, each a Node process, and waits on Litestream
// (which leaves with a killed server only at its next log line): slow on a busy machine.
describe('replication with Litestream', { timeout: 120_000 }, () => {
  it('restores from a file:// replica every award acknowledged before the last sync, with the ledger intact', async () => {
    const db = join(dir, 'round-trip.db');
    const replica = `file://${join(dir, 'round-trip-replica')}`;
    const server = await spawnServer(db, REPLICATE(replica));
    const key = secretKey(server.output());
    const api = client(server.url, key);
    for (let i = 0; i < 5; i++) expect((await api.post('/api/v1/members', { externalId: `m${i}` })).status).toBe(201);

    let lastAck = 0;
    const award = async (perWorker: number) => {
      const ids: string[] = [];
      await Promise.all(Array.from({ length: 4 }, async (_, w) => {
        for (let i = 0; i < perWorker; i++) {
          const res = await api.post(`/api/v1/members/m${(i + w) % 5}/points`, { amount: 1 + (i % 7) });
          expect(res.status).toBe(200);
          ids.push(res.body.transaction.id);
          lastAck = Date.now();
        }
      }));
      return ids;
    };
    const syncedAfterLastAck = () => until('a sync after the last award', async () => {
      const { body } = await client(server.url).get<{ replication: ReplicationStatus }>('/healthz');
      return body.replication.lastSyncAt && Date.parse(body.replication.lastSyncAt) > lastAck ? body.replication : null;
    });

    // Two rounds of awards, with a moment in between to restore to later.
    const before = await award(10);
    await syncedAfterLastAck();
    const between = new Date();
    await sleep(100);
    const after = await award(15);
    const acknowledged = [...before, ...after];
    const synced = await syncedAfterLastAck();
    expect(synced).toMatchObject({ enabled: true, state: 'replicating' });
    expect(synced).not.toHaveProperty('replica'); // public: the replica's URL is for `replicate status` only
    expect(synced.lagSeconds).toBeLessThan(5);
    // `replicate status` reads the file the server rewrites at most once a second.
    await until('the status file to catch up', () => Date.parse(readStatusRecord(db)?.lastSyncAt ?? '') > lastAck);
    const status = punchcardJson(['replicate', 'status', '--db', db]);
    expect(status).toMatchObject({ enabled: true, replica, state: 'replicating' });
    expect(Date.parse(status.lastSyncAt)).toBeGreaterThan(lastAck);

    // The machine dies: the server is killed and its files are lost. Litestream follows its parent
    // out (at its next log line, into a closed pipe); it must be gone before the replica is read.
    const litestreamPid = readStatusRecord(db)!.litestreamPid!;
    server.child.kill('SIGKILL');
    await exited(server.child);
    await until('Litestream to exit with its server', () => !processAlive(litestreamPid));
    for (const file of [db, `${db}-wal`, `${db}-shm`]) rmSync(file, { force: true });

    const restored = punchcard(['restore', '--from', replica, '--db', db]);
    expect(restored.stderr).toBe('');
    expect(restored.status).toBe(0);
    expect(restored.stdout).toContain('integrity ok');
    expect(restored.stdout).toContain('Master key: matches');

    const stored = await transactionIds(db);
    expect(acknowledged).toHaveLength(100);
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);

    // Started again with the key in a file beside the database only: it says that the replica lacks it.
    writeFileSync(`${db}.key`, TEST_MASTER_KEY, { mode: 0o600 });
    const again = await spawnServer(db, REPLICATE(replica), { PUNCHCARD_MASTER_KEY: '' });
    try {
      expect(again.output()).toContain(`the master key exists only as ${db}.key beside the database`);
      const res = await client(again.url, key).get('/api/v1/members/m1');
      expect(res.status).toBe(200);
    } finally {
      again.child.kill('SIGTERM');
      await exited(again.child);
    }
    // A clean stop leaves replication reported as off, with its last sync.
    expect(punchcardJson(['replicate', 'status', '--db', db])).toMatchObject({ enabled: false, state: 'stopped' });

    // Without the master key the data is restored, and restore says what is missing.
    const keyless = punchcard(['restore', '--from', replica, '--db', join(dir, 'keyless.db')], { PUNCHCARD_MASTER_KEY: '' });
    expect(keyless.status).toBe(1);
    expect(keyless.stdout).toContain('No master key');
    // …and what to do next.
    expect(keyless.stdout).toContain(`set PUNCHCARD_MASTER_KEY to it (or write it to ${join(dir, 'keyless.db')}.key, mode 0600), then check with: punchcard doctor --db ${join(dir, 'keyless.db')}`);
    expect(existsSync(join(dir, 'keyless.db'))).toBe(true);
    expect(existsSync(join(dir, 'keyless.db.key'))).toBe(false);
    // Nor does doctor (or any command) then make a new key that could not read the secrets: it names the one it needs.
    const fingerprint = /the key with fingerprint ([0-9a-f]{16})/.exec(keyless.stdout)?.[1];
    expect(fingerprint).toBeDefined();
    const doctor = punchcard(['doctor', '--db', join(dir, 'keyless.db')], { PUNCHCARD_MASTER_KEY: '' });
    expect(doctor.status).toBe(1);
    expect(doctor.stderr).toContain(`the key with fingerprint ${fingerprint}`);
    expect(existsSync(join(dir, 'keyless.db.key'))).toBe(false);

    // Point in time: the first round, none of the second.
    const asOf = join(dir, 'as-of.db');
    const restoredAsOf = punchcard(['restore', '--from', replica, '--db', asOf, '--timestamp', between.toISOString()]);
    expect(restoredAsOf.status, restoredAsOf.stderr).toBe(0);
    const then = await transactionIds(asOf);
    expect(before.filter((id) => !then.has(id))).toEqual([]);
    expect(after.filter((id) => then.has(id))).toEqual([]);

    // A moment after the last write: the latest state at or before it, not "no backup"; readable by the owner only.
    const later = join(dir, 'later.db');
    const afterLast = punchcard(['restore', '--from', replica, '--db', later, '--timestamp', new Date(Date.now() + 3_600_000).toISOString()]);
    expect(afterLast.stderr).toBe('');
    expect(afterLast.status).toBe(0);
    const latest = await transactionIds(later);
    expect(acknowledged.filter((id) => !latest.has(id))).toEqual([]);
    expect(statSync(later).mode & 0o777).toBe(0o600);
  });

  it('refuses to serve --replicate without Litestream, saying how to install it', async () => {
    const db = join(dir, 'no-litestream.db');
    const missing = join(dir, 'no-such-dir', 'litestream');
    const start = spawnServer(db, REPLICATE(`file://${join(dir, 'never')}`), { PUNCHCARD_LITESTREAM_BIN: missing, PATH: '/usr/bin:/bin' });
    await expect(start).rejects.toThrow(/server exited with 1/);
    const message = await start.catch((error: Error) => error.message);
    expect(message).toContain(`Litestream not found: PUNCHCARD_LITESTREAM_BIN=${missing} is not an executable file`);
    expect(message).toContain('npm ci');
    expect(existsSync(db)).toBe(false);
  });

  it('restarts a Litestream that dies, logs it, and keeps answering; doctor judges the lag', async () => {
    const db = join(dir, 'crash.db');
    const replica = `file://${join(dir, 'crash-replica')}`;
    const server = await spawnServer(db, REPLICATE(replica), { PUNCHCARD_LOG: 'info' });
    try {
      const api = client(server.url, secretKey(server.output()));
      expect((await api.post('/api/v1/members', { externalId: 'ann' })).status).toBe(201);
      const first = await until('Litestream to start', () => readStatusRecord(db)?.litestreamPid);

      process.kill(first, 'SIGKILL');
      await until('the restart to be logged', () => server.output().includes('Litestream exited (signal SIGKILL); restarting it in 1 s (restart 1)'));
      expect((await api.post('/api/v1/members/ann/points', { amount: 5 })).status).toBe(200);
      const awardedAt = Date.now();

      const second = await until('a new Litestream', () => {
        const record = readStatusRecord(db);
        return record?.litestreamPid && record.litestreamPid !== first && record.state === 'replicating' ? record.litestreamPid : null;
      });
      expect(processAlive(second)).toBe(true);
      await until('a sync after the restart', async () => {
        const { body } = await client(server.url).get<{ replication: ReplicationStatus }>('/healthz');
        return body.replication.lastSyncAt !== null && Date.parse(body.replication.lastSyncAt) > awardedAt;
      });
      expect((await api.get('/api/v1/members/ann')).body.points).toBe(5);
      expect(readStatusRecord(db)!.restarts).toBe(1);

      // doctor judges the lag against --max-lag.
      expect(punchcard(['doctor', '--db', db, '--max-lag', '60s']).status).toBe(0);
      const behind = punchcard(['doctor', '--db', db, '--max-lag', '1ms']);
      expect(behind.status).toBe(1);
      expect(behind.stdout).toMatch(/Replication: the replica is [\d.]+ s behind \(over 0.001 s\)/);

      // Not even --force restores over a database its server is still replicating.
      const refused = punchcard(['restore', '--from', replica, '--db', db, '--force']);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('is running on');
    } finally {
      server.child.kill('SIGTERM');
      await exited(server.child);
    }
    expect(server.output()).toContain('Litestream: litestream shut down');
  });

  it('restore refuses to overwrite a database without --force, and a replica that does not exist', () => {
    const existing = join(dir, 'existing.db');
    writeFileSync(existing, 'keep me');
    const refused = punchcard(['restore', '--from', `file://${join(dir, 'round-trip-replica')}`, '--db', existing]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('already exists');
    expect(refused.stderr).toContain('--force');
    expect(readFileSync(existing, 'utf8')).toBe('keep me');

    const target = join(dir, 'from-nowhere.db');
    const nowhere = punchcard(['restore', '--from', `file://${join(dir, 'no-replica-here')}`, '--db', target]);
    expect(nowhere.status).toBe(1);
    expect(nowhere.stderr).toContain(`No replica to restore at file://${join(dir, 'no-replica-here')}`);
    expect(existsSync(target)).toBe(false);
  });
});
