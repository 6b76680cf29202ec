import { expireDuePoints, membersWithDuePoints } from './ledger.ts';
import type { Db } from '../../db/connection.ts';

/** Runs synchronous work in a transaction: the group committer in the server, BEGIN IMMEDIATE in the CLI. */
export type WriteRunner = <T>(work: () => T) => Promise<T>;

export interface ExpiryReport {
  members: number;
  points: number;
}

/**
 * The expiry pass: writes an EXPIRED transaction for every member whose awards expired at or
 * before `now`. Works in batches of members, one transaction each, so a large pass never holds
 * the write lock for long.
 */
export async function runExpiryPass(db: Db, write: WriteRunner, now: Date, batchSize = 200): Promise<ExpiryReport> {
  const report: ExpiryReport = { members: 0, points: 0 };
  for (;;) {
    const memberIds = membersWithDuePoints(db, now, batchSize);
    if (memberIds.length === 0) return report;
    const expired = await write(() => memberIds.map((id) => expireDuePoints(db, id, now)));
    report.members += expired.filter((points) => points > 0).length;
    report.points += expired.reduce((sum, points) => sum + points, 0);
    if (memberIds.length < batchSize) return report;
  }
}
