import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { trackInFlight } from '../src/http/in-flight.ts';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { openStore } from '../src/db/store.ts';
import { punchcard, spawnServer } from './helpers/cli.ts';
import { client } from './helpers/http.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'punchcard-shutdown-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Starts `punchcard serve [args]`, has 8 workers award until the server stops answering, sends
 * SIGTERM at the 300th acknowledgement, and returns the ids of every award answered 2xx.
 */
async function sigtermMidLoad(db: string, args: string[], ready: (url: string) => Promise<unknown> = async () => undefined):
  Promise<{ acknowledged: string[]; printed: string }> {
  const { child, url, output, printed } = await spawnServer(db, args, { PUNCHCARD_LOG: 'info', PUNCHCARD_QUIET: 'true' });
  const api = client(url, /secret key\s+(sk_live_\w+)/.exec(output())![1]);
  for (let i = 0; i < 10; i++) expect((await api.post('/api/v1/members', { externalId: `s${i}` })).status).toBe(201);
  await ready(url);
  const acknowledged: string[] = [];
  let afterSignal = 0;
  let signalled = false;
  let failures = 0;
  let reached!: () => void;
  const threeHundred = new Promise<void>((resolve) => { reached = resolve; });
  const worker = async (w: number) => {
    for (let sent = 0; sent < 5_000; sent++) {
      const started = signalled;
      try {
        const res = await api.post(`/api/v1/members/s${(sent + w) % 10}/points`, { amount: 1 + (sent % 5) });
        expect(res.status).toBe(200); // never a 5xx while shutting down
        if (!started && signalled) afterSignal++; // sent before SIGTERM, answered after it
        if (acknowledged.push(res.body.transaction.id) === 300) reached();
      } catch {
        failures++; // refused or reset once the server stopped listening: nothing was acknowledged
        if (signalled) return;
      }
    }
  };
  const load = Promise.all(Array.from({ length: 8 }, (_, w) => worker(w)));
  await threeHundred;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  signalled = true;
  child.kill('SIGTERM');
  await load;
  expect(await exited).toBe(0);
  expect(afterSignal).toBeGreaterThan(0); // requests in flight at SIGTERM were answered, not cut
  expect(failures).toBeLessThanOrEqual(8); // at most each worker's first request after the server stopped listening
  expect(printed()).toContain('SIGTERM: finishing in-flight writes and shutting down');
  expect(printed()).not.toContain('were cut off');
  expect(printed()).not.toMatch(/ERROR/);
  return { acknowledged, printed: printed() };
}

/** Every acknowledged award is in the database at `path`, whose ledger is sound. */
async function expectAllStored(path: string, acknowledged: string[]): Promise<void> {
  const store = await openStore({ path, masterKey: TEST_MASTER_KEY });
  try {
    const stored = new Set(store.db.prepare('SELECT public_id FROM transactions').pluck().all() as string[]);
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    expect(checkLedger(store.db)).toEqual([]);
  } finally {
    store.close();
  }
}

/** Resolves at the replica's first sync (Litestream makes the replica's first generation then). */
async function firstSync(url: string): Promise<void> {
  for (;;) {
    const { body } = await client(url).get<{ replication: { lastSyncAt: string | null } }>('/healthz');
    if (body.replication.lastSyncAt) return;
    await new Promise((resolve) => setTimeout(resolve, 50)); // polling a real child process: no clock to inject
  }
}

describe('SIGTERM under load', { timeout: 120_000 }, () => {
  it('answers the requests in flight, loses no acknowledged award, and closes the database cleanly', async () => {
    const db = join(dir, 'shutdown.db');
    const { acknowledged } = await sigtermMidLoad(db, []);
    // The last connection closed: SQLite folded the WAL into the file and removed it.
    expect(existsSync(`${db}-wal`)).toBe(false);
    await expectAllStored(db, acknowledged);
  });

  it('with --replicate, ships the last writes before exiting: the replica holds every acknowledged award', async () => {
    const db = join(dir, 'replicated.db');
    const replica = `file://${join(dir, 'replica')}`;
    const { acknowledged } = await sigtermMidLoad(db, ['--replicate', replica, '--replicate-interval', '5s'], firstSync);
    // The load starts right after a sync and lasts less than the 5 s interval: only the sync at shutdown can have shipped it.
    const restored = join(dir, 'restored.db');
    const restore = punchcard(['restore', '--from', replica, '--db', restored]);
    expect(restore.status, restore.stderr).toBe(0);
    await expectAllStored(restored, acknowledged);
  });
});

describe('waiting for requests in flight', () => {
  it('waits for a request received whole until it is answered, and answers it with Connection: close; a stalled body is not waited for', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let arrived = 0;
    let bothArrived!: () => void;
    const arrival = new Promise<void>((resolve) => { bothArrived = resolve; });
    const inFlight = trackInFlight((req, res) => {
      if (++arrived === 2) bothArrived();
      if (req.url === '/slow') void held.then(() => res.end('done'));
      // /stalled never reads its body: its client is still sending it
    });
    const server = createServer(inFlight.listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const answered = new Promise<IncomingMessage>((resolve) => httpRequest({ port, path: '/slow' }, resolve).end());
    const stalled = httpRequest({ port, path: '/stalled', method: 'POST', headers: { 'content-length': '100' } });
    stalled.on('error', () => undefined);
    stalled.write('only part of it');
    await arrival;
    let finished = false;
    const finishing = inFlight.finish(60_000).then((left) => {
      finished = true;
      return left;
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(finished).toBe(false); // /slow is still being answered
    release();
    const res = await answered;
    expect(res.headers.connection).toBe('close');
    expect(await finishing).toBe(0); // the stalled upload did not hold the shutdown
    server.closeAllConnections();
    server.close();
  });
});
