import { existsSync } from 'node:fs';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { startTestServer } from './helpers/server.ts';

// WAL checkpoints run on a thread with its own connection (src/db/checkpointer.ts), not inside a
// COMMIT on the event loop.
describe('the checkpoint thread', () => {
  it('copies the WAL into the database while the server writes, and closes before the server does', async () => {
    const server = await startTestServer();
    const { db } = server.ctx;
    try {
      expect(server.checkpointer).not.toBeNull();
      // The server's own connection never checkpoints in a COMMIT.
      expect(db.pragma('wal_autocheckpoint', { simple: true })).toBe(0);
      const checkpointed = once(server.checkpointer!, 'checkpointed');
      for (let i = 0; i < 20; i++) expect((await server.api.post('/api/v1/members', { externalId: `m${i}`, name: `Member ${i}` })).status).toBe(201);
      const [report] = await checkpointed;
      expect(report.backfilled).toBeGreaterThan(0);
      expect(report.backfilled).toBeLessThanOrEqual(report.frames);
    } finally {
      await server.stop();
    }
    // Its connection was closed first: the server's close, the last one, checkpointed the rest and removed the WAL.
    expect(existsSync(`${server.dbPath}-wal`)).toBe(false);
  });

  it('hands checkpoints back to the server if the thread dies', async () => {
    const server = await startTestServer();
    try {
      const failed = once(server.checkpointer!, 'failed');
      await server.checkpointer!.crashForTest();
      const [error] = await failed;
      expect(String(error)).toMatch(/checkpoint thread exited/);
      expect(server.ctx.db.pragma('wal_autocheckpoint', { simple: true })).toBe(1000);
      expect((await server.api.post('/api/v1/members', { externalId: 'still-works' })).status).toBe(201);
    } finally {
      await server.stop();
    }
  });
});
