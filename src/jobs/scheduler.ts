import { Cron } from 'croner';
import type { Clock } from '../domain/clock.ts';
import { runExpiryPass, type WriteRunner } from '../domain/expiry.ts';
import { addMs } from '../domain/clock.ts';
import { pruneDeliveries } from '../domain/deliveries.ts';
import { purgeIdempotencyKeys } from '../domain/idempotency.ts';
import type { Db } from '../db/connection.ts';
import type { Logger } from '../log.ts';
import { DEFAULT_DEAD_RETENTION_MS, DEFAULT_RETENTION_MS } from './webhook-delivery.ts';

/** Webhook rows pruned per transaction: a few milliseconds of write lock each. */
const PRUNE_BATCH = 500;

/** Prunes delivered and dead webhook rows older than their retentions (and their events), a small batch per transaction. */
export async function pruneWebhookDeliveries(write: WriteRunner, db: Db, now: Date, retentionMs: number,
  deadRetentionMs = DEFAULT_DEAD_RETENTION_MS): Promise<number> {
  const cutoffs = { deliveredBefore: addMs(now, -retentionMs), deadBefore: addMs(now, -deadRetentionMs) };
  let pruned = 0;
  for (let batch = PRUNE_BATCH; batch === PRUNE_BATCH;) {
    batch = await write(() => pruneDeliveries(db, cutoffs, PRUNE_BATCH));
    pruned += batch;
  }
  return pruned;
}

/**
 * Housekeeping on a schedule: the point-expiry pass every minute (so expired points leave
 * balances promptly; spending also expires what is due first) and hourly removal of
 * idempotency keys older than 24 h, and of delivered webhook rows older than the retention (default
 * 7 days). `protect` skips a run while the previous one is still going.
 */
export function startScheduler(db: Db, write: WriteRunner, clock: Clock, log: Logger, options: { retentionMs?: number | undefined; deadRetentionMs?: number | undefined } = {}): { stop(): void } {
  const jobs = [
    new Cron('* * * * *', { protect: true }, async () => {
      try {
        const report = await runExpiryPass(db, write, clock());
        if (report.points > 0) log.info(`expiry pass: ${report.points} points expired for ${report.members} members`);
      } catch (error) {
        log.error('expiry pass failed', error);
      }
    }),
    new Cron('17 * * * *', { protect: true }, async () => {
      try {
        await write(() => purgeIdempotencyKeys(db, clock()));
      } catch (error) {
        log.error('idempotency key purge failed', error);
      }
    }),
    new Cron('23 * * * *', { protect: true }, async () => {
      try {
        const pruned = await pruneWebhookDeliveries(write, db, clock(), options.retentionMs ?? DEFAULT_RETENTION_MS, options.deadRetentionMs);
        if (pruned > 0) log.info(`webhook housekeeping: ${pruned} delivered and dead rows pruned`);
      } catch (error) {
        log.error('webhook delivery prune failed', error);
      }
    }),
  ];
  return { stop: () => jobs.forEach((job) => job.stop()) };
}
