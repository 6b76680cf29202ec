import type { Db } from '../db/connection.ts';
import { pruneAudit } from '../domain/audit/audit-log.ts';
import type { WriteRunner } from '../domain/ledger/expiry.ts';
import { pruneDevices } from '../domain/operators/devices.ts';
import { pruneInvites } from '../domain/operators/invites.ts';
import { pruneSessions } from '../domain/operators/sessions.ts';
import { addMs, type Clock } from '../shared/clock.ts';
import type { Logger } from '../shared/log.ts';
import { inBatches, type ScheduledJob } from './scheduler.ts';

/** Rows deleted per transaction: a few milliseconds of write lock, so awards interleave. */
const BATCH = 500;

/** Prunes the audit log past its retention, and ended admin sessions, used or expired links and expired devices, a batch per transaction. */
export async function pruneAdminRows(db: Db, write: WriteRunner, now: Date, auditRetentionMs: number): Promise<{ audit: number; sessions: number }> {
  const audit = await inBatches(write, (limit) => pruneAudit(db, addMs(now, -auditRetentionMs), limit), BATCH);
  const sessions = await inBatches(write, (limit) => pruneSessions(db, now, limit), BATCH);
  await inBatches(write, (limit) => pruneInvites(db, now, limit), BATCH);
  await inBatches(write, (limit) => pruneDevices(db, now, limit), BATCH);
  return { audit, sessions };
}

/** Hourly, like the webhooks' pruning (serve --audit-retention, default 400 days). */
export const adminPruneJob = (db: Db, write: WriteRunner, clock: Clock, log: Logger, auditRetentionMs: number): ScheduledJob => ({
  pattern: '41 * * * *',
  name: 'audit log prune',
  run: async () => {
    const { audit } = await pruneAdminRows(db, write, clock(), auditRetentionMs);
    if (audit > 0) log.info(`audit log: ${audit} entries past their retention pruned`);
  },
});
