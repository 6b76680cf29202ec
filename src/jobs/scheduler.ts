import { Cron } from 'croner';
import type { Clock } from '../shared/clock.ts';
import { runExpiryPass, type WriteRunner } from '../domain/ledger/expiry.ts';
import { purgeIdempotencyKeys, PURGE_BATCH } from '../domain/ledger/idempotency.ts';
import { releaseDuePendingPoints } from '../domain/ledger/pending.ts';
import { sweepErasedCopies } from '../domain/members/erasure-sweep.ts';
import type { Db } from '../db/connection.ts';
import type { StorageMaintenance } from '../db/maintenance.ts';
import type { Logger } from '../shared/log.ts';

/**
 * Runs `prune(limit)` one write (one short transaction through the group committer) at a time
 * until a batch comes back short, so housekeeping never holds the write lock for long and awards
 * interleave with it. Returns how many rows went.
 */
export async function inBatches(write: WriteRunner, prune: (limit: number) => number, batch: number): Promise<number> {
  let removed = 0;
  for (let last = batch; last === batch;) {
    last = await write(() => prune(batch));
    removed += last;
  }
  return removed;
}

/** Forgets idempotency keys past their 24 hours, PURGE_BATCH per transaction. */
export const purgeExpiredIdempotencyKeys = (write: WriteRunner, db: Db, now: Date): Promise<number> =>
  inBatches(write, (limit) => purgeIdempotencyKeys(db, now, limit), PURGE_BATCH);

/** A job other layers add (webhook pruning): a croner pattern, a name for the logs, the work. */
export interface ScheduledJob {
  pattern: string;
  name: string;
  run: () => Promise<void> | void;
}

/**
 * Housekeeping on a schedule: the point-expiry pass every minute (so expired points leave
 * balances promptly; spending also expires what is due first); every minute too the release of
 * imported pending points that became available, and the idempotency
 * keys that passed their 24 h (so the purge is spread over the hour in small batches); hourly, if
 * members were erased since the last time, the sweep of the search index's old entries; the jobs
 * in `more` (the webhooks' own pruning); and, when Punchcard owns checkpoints (`maintenance`, no
 * Litestream), the WAL and free-page maintenance every 10 seconds. `protect` skips a run while the
 * previous one is still going.
 */
export function startScheduler(db: Db, write: WriteRunner, clock: Clock, log: Logger,
  options: { maintenance?: StorageMaintenance | null; more?: ScheduledJob[] } = {}): { stop(): Promise<void> } {
  // Runs in progress, so stop() can wait for them: a pass cut off at shutdown would write to a closed database.
  const running = new Set<Promise<void>>();
  const job = (pattern: string, name: string, run: () => Promise<void> | void) => new Cron(pattern, { protect: true }, async () => {
    const pass = (async () => {
      try {
        await run();
      } catch (error) {
        log.error(`${name} failed`, error);
      }
    })();
    running.add(pass);
    await pass;
    running.delete(pass);
  });
  const jobs = [
    job('* * * * *', 'expiry pass', async () => {
      const report = await runExpiryPass(db, write, clock());
      if (report.points > 0) log.info(`expiry pass: ${report.points} points expired for ${report.members} members`);
    }),
    job('15 * * * * *', 'pending points release', async () => {
      const report = await releaseDuePendingPoints(db, write, clock());
      if (report.points > 0) log.info(`pending points release: ${report.points} points became available for ${report.members} members`);
    }),
    job('30 * * * * *', 'idempotency key purge', async () => {
      await purgeExpiredIdempotencyKeys(write, db, clock());
    }),
    job('50 * * * *', 'erasure sweep', async () => {
      const report = await sweepErasedCopies(db, write);
      if (report) {
        log.info(report.segments > 1
          ? `erasure sweep: stopped after ${report.steps} steps with the search index still in ${report.segments} segments; the next sweep goes on`
          : `erasure sweep: the search index merged into one segment after ${report.erasures} erasures (${report.steps} steps); no erased member's entries remain`);
      }
    }),
  ];
  for (const more of options.more ?? []) jobs.push(job(more.pattern, more.name, more.run));
  const maintenance = options.maintenance;
  if (maintenance) jobs.push(job('*/10 * * * * *', 'storage maintenance', () => void maintenance.tick(clock())));
  return {
    /** No new runs; resolves once the runs in progress have finished. */
    stop: async () => {
      for (const j of jobs) j.stop();
      await Promise.allSettled([...running]);
    },
  };
}
