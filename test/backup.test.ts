import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertMember } from '../src/domain/members/members.ts';
import { BIN } from './helpers/cli.ts';
import { startTestServer, TEST_MASTER_KEY, type TestServer } from './helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

/** `punchcard backup` as a child process, so this process keeps sending awards while it runs. */
function backup(dbPath: string, file: string): Promise<{ status: number | null; output: string }> {
  const child = spawn(process.execPath, [BIN, '--db', dbPath, 'backup', file], { env: { ...process.env, PUNCHCARD_MASTER_KEY: TEST_MASTER_KEY } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, output })));
}

describe('punchcard backup under write load', { timeout: 120_000 }, () => {
  it('finishes while awards keep committing, and holds every award acknowledged before it started', async () => {
    // Several MB, so the copy takes many steps: the online backup API started over at every commit in between.
    const now = server.clock.now();
    for (let batch = 0; batch < 20; batch++) {
      await server.ctx.write(() => {
        for (let i = 0; i < 500; i++) {
          const n = batch * 500 + i;
          upsertMember(server.ctx.db, server.projectId, { externalId: `m${n}`, name: `Member ${n}`, email: `member${n}@example.com` }, now);
        }
      });
    }
    const acknowledged: string[] = [];
    let backupDone = false;
    const award = async (worker: number) => {
      for (let i = 0; !backupDone; i++) {
        const res = await server.api.post(`/api/v1/members/m${(worker * 997 + i) % 10_000}/points`, { amount: 1 });
        expect(res.status).toBe(200);
        acknowledged.push(res.body.transaction.id);
      }
    };
    const workers = Array.from({ length: 8 }, (_, w) => award(w));
    while (acknowledged.length < 200) await new Promise((resolve) => setImmediate(resolve));
    const before = [...acknowledged];
    const file = join(server.dir, 'under-load.db');
    const result = await backup(server.dbPath, file);
    backupDone = true;
    await Promise.all(workers);
    expect(result.output).toContain('integrity checked');
    expect(result.status).toBe(0);
    expect(acknowledged.length).toBeGreaterThan(before.length); // the server kept committing meanwhile
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const copy = new Database(file, { readonly: true });
    try {
      const stored = new Set(copy.prepare('SELECT public_id FROM transactions').pluck().all() as string[]);
      expect(before.filter((id) => !stored.has(id))).toEqual([]);
    } finally {
      copy.close();
    }
  });
});
