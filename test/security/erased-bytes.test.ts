// Erasure reaches the file's bytes, not only its rows. With secure_delete on, what an erasure frees
// is zeroed; what it could not reach were copies SQLite kept from before secure_delete was on (old
// row versions, index keys in pages split back then: 2,000 erasures among 10,000 members left 172
// of 1,800 externalIds in such a file), and the search index's old segments, which keep an erased
// member's entries until a merge. A file written before is rewritten once at the upgrade; the
// erasure sweep merges the search index.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/db/connection.ts';
import { rewriteFileWrittenBeforeSecureDelete } from '../../src/db/maintenance.ts';
import { migrationsFromDir } from '../../src/db/migrations.ts';
import { openStore } from '../../src/db/store.ts';
import { atomically } from '../../src/db/transaction.ts';
import { adjustPoints } from '../../src/domain/ledger/ledger.ts';
import { searchIndexSegments, sweepErasedCopies, unsweptErasures } from '../../src/domain/members/erasure-sweep.ts';
import { upsertMember } from '../../src/domain/members/members.ts';
import { eraseMember } from '../../src/domain/members/privacy.ts';
import { createProject } from '../../src/domain/project/projects.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { punchcardJson } from '../helpers/cli.ts';
import { client } from '../helpers/http.ts';
import { startTestServer, TEST_MASTER_KEY, TestClock } from '../helpers/server.ts';

const MEMBERS = 10_000;
/** Every fifth member is erased after the upgrade; every 20th of the others before it (with the old version). */
const ERASED = Array.from({ length: MEMBERS / 5 }, (_, k) => k * 5);
const ERASED_BEFORE = Array.from({ length: MEMBERS / 20 }, (_, k) => k * 20 + 1);

/** Five-digit numbers, so no member's values are the start of another's (a byte after a key is often a digit). */
const profile = (i: number) => ({ externalId: `member-${10_000 + i}`, email: `m${10_000 + i}.quill@example.org`, name: `Zed${10_000 + i} Quill` });
const PATTERNS = { externalId: /member-\d{5}/g, email: /m\d{5}\.quill@example\.org/g, name: /Zed\d{5} Quill/g };

/** Which of the members' externalIds, emails and names appear in the file's bytes, once the WAL is checkpointed into it. */
function valuesInFile(db: Db, path: string): Set<string> {
  db.pragma('wal_checkpoint(TRUNCATE)');
  const bytes = readFileSync(path).toString('latin1');
  return new Set(Object.values(PATTERNS).flatMap((pattern) => bytes.match(pattern) ?? []));
}
const valuesOf = (members: number[]) => members.flatMap((i) => Object.values(profile(i)));
const present = (found: Set<string>, members: number[]) => valuesOf(members).filter((value) => found.has(value));

/** Members in transactions of 500, as group commits write them, each with one award (its row written again). */
function createMembers(db: Db, projectId: string, now: Date): void {
  for (let from = 0; from < MEMBERS; from += 500) {
    atomically(db, () => {
      for (let i = from; i < from + 500; i++) upsertMember(db, projectId, profile(i), now);
      for (let i = from; i < from + 500; i++) adjustPoints(db, projectId, profile(i).externalId, { amount: 10 }, 'test', now);
    });
  }
}

/**
 * Erases members: a tenth through the API, 100 requests at a time, the rest in writes of 100 as
 * group commits run them. (Each erasure through the API adds an audit entry that every later one
 * reads, so 2,000 that way took 4 s.)
 */
async function erase(server: RunningServer, projectId: string, api: ReturnType<typeof client>, members: number[]): Promise<void> {
  const viaApi = members.filter((_, n) => n % 10 === 0);
  for (let from = 0; from < viaApi.length; from += 100) {
    const answers = await Promise.all(viaApi.slice(from, from + 100).map((i) => api.delete(`/api/v1/members/${profile(i).externalId}`)));
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
  }
  const rest = members.filter((_, n) => n % 10 !== 0);
  const now = server.ctx.clock();
  for (let from = 0; from < rest.length; from += 100) {
    await server.ctx.write(() => {
      for (const i of rest.slice(from, from + 100)) eraseMember(server.ctx.db, projectId, profile(i).externalId, now);
    });
  }
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-erased-bytes-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('erasure reaches the file\'s bytes', { timeout: 120_000 }, () => {
  it('a file written before secure_delete is rewritten once at the upgrade; after 2,000 erasures and the sweep it holds no erased value, nor their search entries', async () => {
    const path = join(dir, 'old.db');
    const now = new Date('2026-03-01T10:00:00.000Z');
    // The previous version: its migrations, and no secure_delete.
    const old = await openStore({ path, masterKey: TEST_MASTER_KEY, migrations: migrationsFromDir().filter((m) => m.version < 35) });
    old.db.pragma('secure_delete = OFF');
    const { project, secretKey } = createProject(old.db, old.box, { name: 'Shop' }, now);
    createMembers(old.db, project.id, now);
    for (const i of ERASED_BEFORE) eraseMember(old.db, project.id, profile(i).externalId, now);
    // What that version left: the members it erased are still in the file's free space.
    expect(present(valuesInFile(old.db, path), ERASED_BEFORE).length).toBeGreaterThan(ERASED_BEFORE.length);
    old.close();
    // This version's CLI migrates it, and doctor says the rewrite is due.
    expect(punchcardJson(['--db', path, 'doctor']).erasure).toEqual({ unsweptErasures: ERASED_BEFORE.length, searchIndexSegments: expect.any(Number), fileRewriteDue: true });

    const clock = new TestClock(now);
    const server: RunningServer = await startServer({ db: path, port: 0, host: '127.0.0.1', logLevel: 'silent', scheduler: false, clock: clock.now,
      masterKey: TEST_MASTER_KEY, webhooks: { runner: false }, commerce: { runner: false } });
    try {
      const { db } = server.ctx;
      // The upgrade rewrote the file, once.
      expect(db.prepare("SELECT count(*) FROM meta WHERE key = 'vacuum_due'").pluck().get()).toBe(0);
      expect(rewriteFileWrittenBeforeSecureDelete(db)).toBe(false);
      expect(present(valuesInFile(db, path), ERASED_BEFORE)).toEqual([]);
      // The members erased before the upgrade are the first sweep's to merge away.
      expect(unsweptErasures(db)).toBe(ERASED_BEFORE.length);

      const api = client(server.url, secretKey);
      await erase(server, project.id, api, ERASED);
      expect(unsweptErasures(db)).toBe(ERASED_BEFORE.length + ERASED.length);
      expect(searchIndexSegments(db)).toBeGreaterThan(1);

      const report = await sweepErasedCopies(db, server.ctx.write);
      expect(report).toMatchObject({ erasures: ERASED_BEFORE.length + ERASED.length, segments: 1 });
      expect(searchIndexSegments(db)).toBe(1);
      expect(unsweptErasures(db)).toBe(0);
      expect(await sweepErasedCopies(db, server.ctx.write)).toBeNull();

      const found = valuesInFile(db, path);
      expect(present(found, [...ERASED, ...ERASED_BEFORE])).toEqual([]);
      // The scan does find what is there: every live member's values.
      const live = Array.from({ length: MEMBERS }, (_, i) => i).filter((i) => i % 5 !== 0 && i % 20 !== 1);
      expect(present(found, live)).toHaveLength(live.length * 3);
      // Search answers as before from the merged index.
      const search = async (text: string) => ((await api.get(`/api/v1/members?search=${encodeURIComponent(text)}`)).body.members as { externalId: string }[]).map((m) => m.externalId);
      expect(await search(profile(7).name)).toEqual([profile(7).externalId]);
      expect(await search(profile(5).name)).toEqual([]);
    } finally {
      await server.close();
    }
  });

  it('a file this version made is never rewritten, and erasure there leaves no value in its bytes even before the sweep', async () => {
    const clock = new TestClock(new Date('2026-03-01T10:00:00.000Z'));
    const server = await startTestServer({ clock, webhooks: { runner: false } });
    try {
      const { db } = server.ctx;
      expect(db.prepare("SELECT count(*) FROM meta WHERE key = 'vacuum_due'").pluck().get()).toBe(0);
      await server.ctx.write(() => createMembers(db, server.projectId, clock.now()));
      await erase(server, server.projectId, server.api, ERASED);
      const { erasure } = punchcardJson(['--db', server.dbPath, 'doctor']);
      expect(erasure).toMatchObject({ unsweptErasures: ERASED.length, fileRewriteDue: false });
      expect(erasure.searchIndexSegments).toBeGreaterThan(1);
      const found = valuesInFile(db, server.dbPath);
      expect(present(found, ERASED)).toEqual([]);
      expect(present(found, [1, 2, 3])).toHaveLength(9);
      // An erasure made while the sweep runs is left for the next sweep.
      const [report] = await Promise.all([sweepErasedCopies(db, server.ctx.write),
        server.ctx.write(() => eraseMember(db, server.projectId, profile(1).externalId, clock.now()))]);
      expect(report).toMatchObject({ erasures: ERASED.length, segments: 1 });
      expect(unsweptErasures(db)).toBe(1);
      expect(await sweepErasedCopies(db, server.ctx.write)).toMatchObject({ erasures: 1, segments: 1 });
      expect(unsweptErasures(db)).toBe(0);
    } finally {
      await server.stop();
    }
  });
});
