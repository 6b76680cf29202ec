import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.ts';
import { JOURNAL_SIZE_LIMIT, QUIET_MS, useIncrementalVacuum } from '../src/db/maintenance.ts';
import { startTestServer, TestClock } from './helpers/server.ts';

const dir = mkdtempSync(join(tmpdir(), 'punchcard-maintenance-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const MB = 1 << 20;

describe('storage maintenance (Punchcard owns checkpoints)', () => {
  it('converts an existing file to incremental vacuum once, outside any transaction', () => {
    const path = join(dir, 'old.db');
    const old = new Database(path); // as every file was created before: auto_vacuum NONE
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE t (x); INSERT INTO t VALUES (1)');
    old.close();
    const db = openDatabase(path);
    try {
      expect(db.pragma('auto_vacuum', { simple: true })).toBe(0);
      expect(useIncrementalVacuum(db)).toBe(true);
      expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
      expect(useIncrementalVacuum(db)).toBe(false);
      expect(db.prepare('SELECT x FROM t').pluck().get()).toBe(1);
    } finally {
      db.close();
    }
  });

  it('brings a WAL grown past 32 MB back under 4 MB within 60 s of the burst, and returns freed pages to the disk', async () => {
    const clock = new TestClock();
    const server = await startTestServer({ clock });
    try {
      const { db } = server.ctx;
      const maintenance = server.maintenance!;
      expect(db.pragma('auto_vacuum', { simple: true })).toBe(2);
      expect(db.pragma('journal_size_limit', { simple: true })).toBe(JOURNAL_SIZE_LIMIT);
      // A reader holding a snapshot (a report, a backup) keeps every checkpoint from resetting the WAL while a burst is written.
      const reader = new Database(server.dbPath, { readonly: true });
      reader.prepare('BEGIN').run();
      reader.prepare('SELECT count(*) FROM members').get();
      await server.ctx.write(() => {
        db.exec('CREATE TABLE burst (b BLOB)');
        for (let i = 0; i < 40; i++) db.prepare('INSERT INTO burst VALUES (randomblob(?))').run(MB);
      });
      await server.ctx.write(() => db.exec('DROP TABLE burst'));
      reader.prepare('COMMIT').run();
      reader.close();
      expect(maintenance.walBytes()).toBeGreaterThan(32 * MB);

      // Writes just happened: no truncating checkpoint yet, but freed pages start going back.
      const first = maintenance.tick(clock.now());
      expect(first.truncated).toBeNull();
      expect(first.vacuumedPages).toBeGreaterThan(0);
      const reports = [];
      for (let waited = 10_000; waited <= 60_000; waited += 10_000) {
        clock.advance(10_000);
        reports.push(maintenance.tick(clock.now()));
      }
      expect(QUIET_MS).toBeLessThanOrEqual(60_000);
      expect(reports.some((r) => r.truncated)).toBe(true);
      expect(maintenance.walBytes()).toBeLessThanOrEqual(4 * MB);
      // Each tick returned at most VACUUM_PAGES free pages; keep ticking until none are left: the file shrinks back.
      for (let i = 0; i < 40 && (db.pragma('freelist_count', { simple: true }) as number) > 0; i++) {
        clock.advance(10_000);
        maintenance.tick(clock.now());
      }
      clock.advance(10_000);
      maintenance.tick(clock.now());
      expect(db.pragma('freelist_count', { simple: true })).toBe(0);
      // The 40 MB the burst took in the file went back to the disk (without incremental vacuum the file would keep them).
      expect(statSync(server.dbPath).size).toBeLessThan(4 * MB);
      expect(maintenance.walBytes()).toBeLessThanOrEqual(4 * MB);
      // Awards go on as before.
      expect((await server.api.post('/api/v1/members', { externalId: 'after' })).status).toBe(201);
    } finally {
      await server.stop();
    }
  });
});
