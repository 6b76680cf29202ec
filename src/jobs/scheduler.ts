import { Cron } from 'croner';
import type { Clock } from '../domain/clock.ts';
import { runExpiryPass, type WriteRunner } from '../domain/expiry.ts';
import { purgeIdempotencyKeys } from '../domain/idempotency.ts';
import type { Db } from '../db/connection.ts';
import type { Logger } from '../log.ts';

/**
 * Housekeeping on a schedule: the point-expiry pass every minute (so expired points leave
 * balances promptly; spending also expires what is due first) and hourly removal of
 * idempotency keys older than 24 h. `protect` skips a run while the previous one is still going.
 */
export function startScheduler(db: Db, write: WriteRunner, clock: Clock, log: Logger): { stop(): void } {
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
  ];
  return { stop: () => jobs.forEach((job) => job.stop()) };
}
