import type { Db } from '../db/connection.ts';
import type { WriteRunner } from '../domain/ledger/expiry.ts';
import { inBatches, type ScheduledJob } from '../jobs/scheduler.ts';
import type { Clock } from '../shared/clock.ts';
import { addMs } from '../shared/clock.ts';
import type { Logger } from '../shared/log.ts';
import { pruneDeliveries } from './deliveries.ts';
import { DEFAULT_DEAD_RETENTION_MS, DEFAULT_RETENTION_MS } from './dispatcher.ts';

/** Prunes delivered and dead webhook rows older than their retentions (and their events), a batch per transaction. */
export const pruneWebhookDeliveries = (write: WriteRunner, db: Db, now: Date, retentionMs: number,
  deadRetentionMs = DEFAULT_DEAD_RETENTION_MS): Promise<number> => {
  const cutoffs = { deliveredBefore: addMs(now, -retentionMs), deadBefore: addMs(now, -deadRetentionMs) };
  return inBatches(write, (limit) => pruneDeliveries(db, cutoffs, limit), 1000);
};

/** Hourly: delivered webhook rows past their retention (default 7 days) and dead ones past theirs (30 days). */
export const webhookPruneJob = (db: Db, write: WriteRunner, clock: Clock, log: Logger,
  retentions: { retentionMs?: number | undefined; deadRetentionMs?: number | undefined } = {}): ScheduledJob => ({
  pattern: '23 * * * *',
  name: 'webhook delivery prune',
  run: async () => {
    const pruned = await pruneWebhookDeliveries(write, db, clock(), retentions.retentionMs ?? DEFAULT_RETENTION_MS, retentions.deadRetentionMs);
    if (pruned > 0) log.info(`webhook housekeeping: ${pruned} delivered and dead rows pruned`);
  },
});
