import { Cron } from 'croner';
import type { Clock } from '../domain/clock.ts';
import { runExpiryPass, type WriteRunner } from '../domain/expiry.ts';
import { addMs } from '../domain/clock.ts';
import { pruneDeliveries } from '../domain/deliveries.ts';
import { purgeIdempotencyKeys, PURGE_BATCH } from '../domain/idempotency.ts';
import { LEADERBOARD_PRUNE_BATCH, pruneLeaderboards } from '../domain/leaderboard.ts';
import type { Db } from '../db/connection.ts';
import type { StorageMaintenance } from '../db/maintenance.ts';
import type { Logger } from '../log.ts';
import { DEFAULT_DEAD_RETENTION_MS, DEFAULT_RETENTION_MS } from './webhook-delivery.ts';

/**
 * Runs `prune(limit)` one write (one short transaction through the group committer) at a time
 * until a batch comes back short, so housekeeping never holds the write lock for long and awards
 * interleave with it. Returns how many rows went.
 */
async function inBatches(write: WriteRunner, prune: (limit: number) => number, batch: number): Promise<number> {
  let removed = 0;
  for (let last = batch; last === batch;) {
    last = await write(() => prune(batch));
    removed += last;
  }
  return removed;
}

/** Prunes delivered and dead webhook rows older than their retentions (and their events), a batch per transaction. */
export const pruneWebhookDeliveries = (write: WriteRunner, db: Db, now: Date, retentionMs: number,
  deadRetentionMs = DEFAULT_DEAD_RETENTION_MS): Promise<number> => {
  const cutoffs = { deliveredBefore: addMs(now, -retentionMs), deadBefore: addMs(now, -deadRetentionMs) };
  return inBatches(write, (limit) => pruneDeliveries(db, cutoffs, limit), 1000);
};

/** Forgets idempotency keys past their 24 hours, PURGE_BATCH per transaction. */
export const purgeExpiredIdempotencyKeys = (write: WriteRunner, db: Db, now: Date): Promise<number> =>
  inBatches(write, (limit) => purgeIdempotencyKeys(db, now, limit), PURGE_BATCH);

/** Drops leaderboard totals of periods no leaderboard shows any more, LEADERBOARD_PRUNE_BATCH per transaction. */
export const pruneLeaderboardTotals = (write: WriteRunner, db: Db, now: Date): Promise<number> =>
  inBatches(write, (limit) => pruneLeaderboards(db, now, limit), LEADERBOARD_PRUNE_BATCH);

/**
 * Housekeeping on a schedule: the point-expiry pass every minute (so expired points leave
 * balances promptly; spending also expires what is due first); every minute too the idempotency
 * keys that passed their 24 h (so the purge is spread over the hour in small batches); hourly the
 * delivered webhook rows older than the retention (default 7 days) and the leaderboard totals of
 * past periods; and, when Punchcard owns checkpoints (`maintenance`, no Litestream), the WAL and
 * free-page maintenance every 10 seconds. `protect` skips a run while the previous one is still going.
 */
export function startScheduler(db: Db, write: WriteRunner, clock: Clock, log: Logger,
  options: { retentionMs?: number | undefined; deadRetentionMs?: number | undefined; maintenance?: StorageMaintenance | null } = {}): { stop(): void } {
  const job = (pattern: string, name: string, run: () => Promise<void> | void) => new Cron(pattern, { protect: true }, async () => {
    try {
      await run();
    } catch (error) {
      log.error(`${name} failed`, error);
    }
  });
  const jobs = [
    job('* * * * *', 'expiry pass', async () => {
      const report = await runExpiryPass(db, write, clock());
      if (report.points > 0) log.info(`expiry pass: ${report.points} points expired for ${report.members} members`);
    }),
    job('30 * * * * *', 'idempotency key purge', async () => {
      await purgeExpiredIdempotencyKeys(write, db, clock());
    }),
    job('23 * * * *', 'webhook delivery prune', async () => {
      const pruned = await pruneWebhookDeliveries(write, db, clock(), options.retentionMs ?? DEFAULT_RETENTION_MS, options.deadRetentionMs);
      if (pruned > 0) log.info(`webhook housekeeping: ${pruned} delivered and dead rows pruned`);
    }),
    job('41 * * * *', 'leaderboard prune', async () => {
      const pruned = await pruneLeaderboardTotals(write, db, clock());
      if (pruned > 0) log.info(`leaderboard housekeeping: ${pruned} totals of past periods pruned`);
    }),
  ];
  const maintenance = options.maintenance;
  if (maintenance) jobs.push(job('*/10 * * * * *', 'storage maintenance', () => void maintenance.tick(clock())));
  return { stop: () => jobs.forEach((j) => j.stop()) };
}
