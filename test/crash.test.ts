import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkFigures } from '../src/domain/analytics/recount.ts';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { openStore } from '../src/db/store.ts';
import { spawnServer } from './helpers/cli.ts';
import { client } from './helpers/http.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'punchcard-crash-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a crash mid-load', () => {
  it('loses no acknowledged award and leaves the ledger consistent', async () => {
    const db = join(dir, 'crash.db');
    const { child, url, output } = await spawnServer(db);
    const api = client(url, /secret key\s+(sk_live_\w+)/.exec(output())![1]);
    for (let i = 0; i < 10; i++) await api.post('/api/v1/members', { externalId: `c${i}` });

    // 8 workers award continuously (at most 2,000 sent); the 400th acknowledgement pulls the plug.
    const acknowledged: string[] = [];
    let sent = 0;
    let reached!: () => void;
    const fourHundred = new Promise<void>((resolve) => { reached = resolve; });
    const worker = async (w: number) => {
      while (acknowledged.length < 400 && sent < 2_000) {
        sent++;
        const res = await api.post(`/api/v1/members/c${(sent + w) % 10}/points`, { amount: 1 + (sent % 5) });
        if (res.status === 200 && acknowledged.push(res.body.transaction.id) === 400) reached();
      }
    };
    const load = Promise.allSettled(Array.from({ length: 8 }, (_, w) => worker(w)));
    await Promise.race([fourHundred, load]);
    child.kill('SIGKILL'); // no shutdown hook runs: in-flight requests die with the process
    await load;
    await new Promise((resolve) => child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve));
    expect(acknowledged.length).toBeGreaterThanOrEqual(400);

    const store = await openStore({ path: db, masterKey: TEST_MASTER_KEY });
    try {
      const stored = new Set((store.db.prepare('SELECT public_id FROM transactions').pluck().all() as string[]));
      expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
      expect(checkLedger(store.db)).toEqual([]);
      // The daily figures were written in the same transactions: none lost or half-written either.
      expect(checkFigures(store.db)).toEqual({ problems: [], memberDays: 0 });
    } finally {
      store.close();
    }

    // And it starts again on the same file.
    const again = await spawnServer(db);
    try {
      const res = await client(again.url, /secret key\s+(sk_live_\w+)/.exec(output())![1]).get('/api/v1/members/c1/points');
      expect(res.status).toBe(200);
    } finally {
      again.child.kill('SIGTERM');
      await new Promise((resolve) => again.child.once('exit', resolve));
    }
  });
});
