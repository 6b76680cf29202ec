// The erasure sweep over 100,000 members, in-process, on a copy of the search dataset (realistic
// externalIds, emails and names, the trigram index built):
//   taskset -c 0 node --import tsx bench/erasure-sweep.ts   (ERASE erasures, default 1,000; AWARD_RATE awards a second, default 500)
// 1. ERASE erasures, one write each through the group committer: wall time and CPU per erasure.
// 2. Awards at AWARD_RATE a second through the same committer, each timed from when it was due to
//    its commit (a late start counts): SECONDS without the sweep, then while the sweep runs; and
//    how long each merge step's work held the write lock (it runs inside a group commit's batch).
// 3. The alternatives on copies of the same file: FTS5 'optimize' in one write, REINDEX of the two
//    member indexes that hold personal values.
// The dataset is written without secure_delete, like a file from before it: first it gets the
// one-time VACUUM the server gives such a file at start-up (timed; REWRITE=0 skips it).
// 4. After the sweep and a checkpoint: the index's segments, and erased externalIds and emails left in the file's bytes.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Db } from '../src/db/connection.ts';
import { GroupCommitter } from '../src/db/group-commit.ts';
import { openStore } from '../src/db/store.ts';
import { atomically } from '../src/db/transaction.ts';
import { adjustPoints } from '../src/domain/ledger/ledger.ts';
import { searchIndexSegments, sweepErasedCopies } from '../src/domain/members/erasure-sweep.ts';
import { eraseMember } from '../src/domain/members/privacy.ts';
import { searchDataset } from './dataset.ts';
import { searchProfile } from './profiles.ts';
import { BENCH_MASTER_KEY, fmt, setting, table } from './settings.ts';

const MEMBERS = 100_000;
const ERASE = setting('ERASE', 1_000, { integer: true, min: 1 });
const AWARD_RATE = setting('AWARD_RATE', 500, { min: 1 });
const SECONDS = setting('SECONDS', 3, { min: 1 });
const REWRITE = process.env.REWRITE !== '0';

/** Members 1, 1 + MEMBERS / ERASE, …: spread over the index. */
const SPACING = Math.floor(MEMBERS / ERASE);
const erased = Array.from({ length: ERASE }, (_, k) => 1 + k * SPACING);
const isErased = (member: number) => member % SPACING === 1 % SPACING && member <= erased.at(-1)!;

const ms = (n: number) => n.toFixed(2);
const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]!;
  return { n: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted.at(-1)!, total: sorted.reduce((a, b) => a + b, 0) };
};
const timed = (work: () => void) => {
  const started = performance.now();
  work();
  return performance.now() - started;
};

/**
 * Awards at AWARD_RATE a second until `until` resolves (for SECONDS when it is null), each one's
 * latency from when it was due to its commit.
 */
async function awardsDuring(committer: GroupCommitter, db: Db, projectId: string, until: Promise<unknown> | null): Promise<number[]> {
  const latencies: number[] = [];
  const pending: Promise<void>[] = [];
  const start = performance.now();
  let sent = 0;
  let done = false;
  void until?.then(() => { done = true; });
  const end = start + SECONDS * 1000;
  while (until === null ? performance.now() < end : !done) {
    const due = Math.floor(((performance.now() - start) / 1000) * AWARD_RATE);
    for (; sent < due; sent++) {
      const dueAt = start + (sent / AWARD_RATE) * 1000;
      const member = 1 + ((sent * 7919) % MEMBERS);
      const externalId = searchProfile(isErased(member) ? member + 1 : member).externalId;
      pending.push(committer.run(() => adjustPoints(db, projectId, externalId, { amount: 1 }, 'bench', new Date())).then(() => {
        latencies.push(performance.now() - dueAt);
      }));
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(pending);
  return latencies;
}

/**
 * How many of the erased members' externalIds and emails the file's bytes hold (names repeat every
 * 2,000 members in this dataset, so live members hold them too). Found by pattern, not one search
 * of the file per value; a byte before an email may be a letter, so emails match by their end.
 */
function erasedValuesIn(path: string, erased: number[]): number {
  const bytes = readFileSync(path).toString('latin1');
  const ids = new Set(bytes.match(/cust-\d{7}/g));
  // Emails found, by what follows their first dot ("garcia1@example.com").
  const emails = new Map<string, string[]>();
  const tail = (email: string) => email.slice(email.indexOf('.') + 1);
  for (const found of bytes.match(/[a-z]+\.[a-z]+\d+@(?:example\.com|mail\.example|shop\.example\.org|inbox\.example\.net)/g) ?? []) {
    emails.set(tail(found), [...(emails.get(tail(found)) ?? []), found]);
  }
  const emailFound = (email: string) => (emails.get(tail(email)) ?? []).some((found) => found.endsWith(email));
  return erased.filter((i) => ids.has(searchProfile(i).externalId)).length + erased.filter((i) => emailFound(searchProfile(i).email)).length;
}

const dir = mkdtempSync(join(tmpdir(), 'punchcard-bench-erasure-sweep-'));
try {
  const dataset = await searchDataset(MEMBERS, 900);
  console.log(`dataset ${dataset.path}: ${dataset.buildSeconds ? `built in ${dataset.buildSeconds} s` : 'cached'}; erasing ${fmt(ERASE)} of ${fmt(MEMBERS)} members`);
  const path = join(dir, 'sweep.db');
  copyFileSync(dataset.path, path);
  const store = await openStore({ path, masterKey: BENCH_MASTER_KEY });
  const { db } = store;
  // The dataset is written without secure_delete, as every file before it was: the server rewrites
  // such a file once at start-up (REWRITE=0 keeps it as it is, to see what that leaves).
  if (REWRITE) console.log(`the one-time VACUUM of the ${(statSync(path).size / 1e6).toFixed(1)} MB file: ${ms(timed(() => db.exec('VACUUM')))} ms`);
  const committer = new GroupCommitter(db);

  // 1. Erasures.
  const erasureMs: number[] = [];
  const cpu = process.cpuUsage();
  for (const i of erased) {
    const started = performance.now();
    await committer.run(() => eraseMember(db, dataset.projectId, searchProfile(i).externalId, new Date()));
    erasureMs.push(performance.now() - started);
  }
  const erasureCpu = process.cpuUsage(cpu);
  const erasures = summary(erasureMs);
  console.log(`erasure: wall p50 ${ms(erasures.p50)} ms, p99 ${ms(erasures.p99)}, CPU ${Math.round((erasureCpu.user + erasureCpu.system) / ERASE)} µs each; `
    + `search index now ${searchIndexSegments(db)} segments`);
  db.pragma('wal_checkpoint(TRUNCATE)');
  const before = join(dir, 'before-sweep.db');
  copyFileSync(path, before);

  // 2. Awards alone, then awards while the sweep runs.
  const alone = summary(await awardsDuring(committer, db, dataset.projectId, null));
  const stepMs: number[] = [];
  const write = <T>(work: () => T) => committer.run(() => {
    const started = performance.now();
    try {
      return work();
    } finally {
      stepMs.push(performance.now() - started);
    }
  });
  const sweepStarted = performance.now();
  let sweepSeconds = 0;
  const sweep = sweepErasedCopies(db, write).then((report) => {
    sweepSeconds = (performance.now() - sweepStarted) / 1000;
    return report;
  });
  const during = summary(await awardsDuring(committer, db, dataset.projectId, sweep));
  const report = await sweep;
  const steps = summary(stepMs);
  console.log(`sweep: ${JSON.stringify(report)} in ${sweepSeconds.toFixed(2)} s; each step's work p50 ${ms(steps.p50)} ms, max ${ms(steps.max)}, `
    + `${ms(steps.total)} ms in all over ${steps.n} writes`);
  console.log(table([`awards at ${fmt(AWARD_RATE)}/s`, 'n', 'p50 ms', 'p99 ms', 'max ms'], [
    ['without the sweep', String(alone.n), ms(alone.p50), ms(alone.p99), ms(alone.max)],
    ['while it runs', String(during.n), ms(during.p50), ms(during.p99), ms(during.max)],
  ]));

  // 4. What is left.
  db.pragma('wal_checkpoint(TRUNCATE)');
  console.log(`after the sweep: ${searchIndexSegments(db)} segment(s); erased externalIds and emails in the file: `
    + `${erasedValuesIn(path, erased)} of ${erased.length * 2}`);
  store.close();

  // 3. The alternatives, each on a copy of the file as it was before the sweep.
  const onCopy = async (name: string, work: (db: Db) => number) => {
    const file = join(dir, `${name}.db`);
    copyFileSync(before, file);
    const copy = await openStore({ path: file, masterKey: BENCH_MASTER_KEY });
    try {
      return work(copy.db);
    } finally {
      copy.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${file}${suffix}`, { force: true });
    }
  };
  const optimize = await onCopy('optimize', (db) => timed(() => atomically(db, () => db.exec("INSERT INTO members_search (members_search) VALUES ('optimize')"))));
  const reindexExternalId = await onCopy('reindex-1', (db) => timed(() => atomically(db, () => db.exec('REINDEX members_external_id'))));
  const reindexEmail = await onCopy('reindex-2', (db) => timed(() => atomically(db, () => db.exec('REINDEX members_project_email'))));
  console.log(table(['instead, in one write', 'write lock ms'], [
    ["FTS5 'optimize'", ms(optimize)],
    ['REINDEX members_external_id', ms(reindexExternalId)],
    ['REINDEX members_project_email', ms(reindexEmail)],
  ]));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
