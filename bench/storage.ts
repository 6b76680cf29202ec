// Bounded storage, measured in-process on a real file (synchronous=FULL):
//   npm run bench:storage          (STORAGE_AWARDS awards with an Idempotency-Key, default 100,000)
// 1. Bytes an award's idempotency key takes (table and indexes, from dbstat), against the JSON copy
//    of the answer it replaces.
// 2. The purge once they expire: the time each batch of PURGE_BATCH holds the write lock (BEGIN
//    IMMEDIATE … COMMIT), and apart from it the checkpoints of the pages it writes.
// 3. The WAL after a burst while a reader held a snapshot, then after the maintenance tick once
//    writes paused.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { atomically } from '../src/db/transaction.ts';
import { QUIET_MS, StorageMaintenance } from '../src/db/maintenance.ts';
import { DAY_MS } from '../src/shared/clock.ts';
import { once, purgeIdempotencyKeys, PURGE_BATCH, requestFingerprint } from '../src/domain/ledger/idempotency.ts';
import { adjustPoints } from '../src/domain/ledger/ledger.ts';
import { upsertMember } from '../src/domain/members/members.ts';
import { createProject } from '../src/domain/project/projects.ts';
import { openStore } from '../src/db/store.ts';
import { BENCH_MASTER_KEY } from './settings.ts';

const AWARDS = Number(process.env.STORAGE_AWARDS ?? 100_000);
const MEMBERS = 1_000;
const dir = mkdtempSync(join(tmpdir(), 'punchcard-storage-bench-'));
const path = join(dir, 'storage.db');
const wal = () => statSync(`${path}-wal`, { throwIfNoEntry: false })?.size ?? 0;
const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;
const stats = (ms: number[], what = 'batches') => {
  const sorted = [...ms].sort((a, b) => a - b);
  return `p50 ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(2)} ms over ${ms.length} ${what}`;
};
/** Runs `work` in one BEGIN IMMEDIATE … COMMIT and returns how long that held the write lock. */
const timed = (db: Database.Database, work: () => number) => {
  const started = performance.now();
  const n = atomically(db, work);
  return { n, ms: performance.now() - started };
};

try {
  const store = await openStore({ path, masterKey: BENCH_MASTER_KEY });
  const { db } = store;
  const t0 = new Date('2026-01-01T12:00:00Z');
  const { project } = createProject(db, store.box, { name: 'Bench' }, t0);
  atomically(db, () => { for (let i = 0; i < MEMBERS; i++) upsertMember(db, project.id, { externalId: `member-${i}`, email: `member-${i}@example.com`, name: `Member ${i}` }, t0); });

  // 1. Awards with keys, spread over 120 days so the leaderboards hold many periods.
  let answerBytes = 0;
  for (let from = 0; from < AWARDS; from += 500) {
    atomically(db, () => {
      for (let i = from; i < Math.min(from + 500, AWARDS); i++) {
        const now = new Date(t0.getTime() + Math.floor((i / AWARDS) * 120 * DAY_MS));
        const externalId = `member-${i % MEMBERS}`;
        const body = { amount: 1 };
        const response = once(db, { projectId: project.id, key: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`, fingerprint: requestFingerprint('POST', `/api/v1/members/${externalId}/points`, body) }, now,
          () => ({ status: 200, body: adjustPoints(db, project.id, externalId, body, 'sk_live_bench', now), storeAs: 'award' }));
        answerBytes += JSON.stringify(response.body).length;
      }
    });
  }
  const keyBytes = db.prepare(`SELECT sum(pgsize) FROM dbstat WHERE name IN ('idempotency_keys', 'idempotency_keys_project_key', 'idempotency_keys_created', 'idempotency_keys_copies')`).pluck().get() as number;
  const keys = db.prepare('SELECT count(*) FROM idempotency_keys').pluck().get() as number;
  console.log(`idempotency keys: ${keys} awards, ${Math.round(keyBytes / keys)} bytes per key (table and indexes); the JSON copy of each answer alone was ${Math.round(answerBytes / AWARDS)} bytes`);

  // 2. Purge everything once expired, in batches. SQLite's automatic checkpoint runs inside the
  //    COMMIT call that takes the WAL past 1,000 pages, after the write lock is released; so it is
  //    off here, each batch's time is its write lock alone, and the checkpoints are taken (and
  //    timed) apart at the same number of pages (SQLite's default: 1,000).
  db.pragma('wal_checkpoint(TRUNCATE)');
  const autocheckpoint = db.pragma('wal_autocheckpoint', { simple: true }) as number;
  db.pragma('wal_autocheckpoint = 0');
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  const end = new Date(t0.getTime() + 122 * DAY_MS);
  const purgeMs: number[] = [];
  const checkpointMs: number[] = [];
  for (let n = PURGE_BATCH; n === PURGE_BATCH;) {
    const batch = timed(db, () => purgeIdempotencyKeys(db, end));
    n = batch.n;
    purgeMs.push(batch.ms);
    if (wal() >= autocheckpoint * (pageSize + 24)) { // 24: a WAL frame's header
      const started = performance.now();
      db.pragma('wal_checkpoint(TRUNCATE)');
      checkpointMs.push(performance.now() - started);
    }
  }
  db.pragma(`wal_autocheckpoint = ${autocheckpoint}`);
  console.log(`purge of ${keys} keys, ${PURGE_BATCH} per transaction: write lock ${stats(purgeMs)}; `
    + `a checkpoint each ${autocheckpoint} WAL pages ${stats(checkpointMs, 'checkpoints')}`);

  // 3. A burst while a reader holds a snapshot, then the maintenance tick once writes pause.
  const maintenance = new StorageMaintenance(db, path);
  const reader = new Database(path, { readonly: true });
  reader.prepare('BEGIN').run();
  reader.prepare('SELECT count(*) FROM members').get();
  atomically(db, () => {
    db.exec('CREATE TABLE burst (b BLOB)');
    for (let i = 0; i < 40; i++) db.prepare('INSERT INTO burst VALUES (randomblob(?))').run(1 << 20);
  });
  atomically(db, () => db.exec('DROP TABLE burst'));
  reader.prepare('COMMIT').run();
  reader.close();
  const grown = wal();
  maintenance.tick(end);
  const started = performance.now();
  const report = maintenance.tick(new Date(end.getTime() + QUIET_MS));
  console.log(`WAL ${mb(grown)} after the burst; ${QUIET_MS / 1000} s after writes paused the maintenance tick took ${(performance.now() - started).toFixed(0)} ms ` +
    `and left ${mb(report.walBytes)} (truncated: ${report.truncated}); file ${mb(statSync(path).size)}, ${db.pragma('freelist_count', { simple: true })} free pages left to return`);
  store.close();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
