import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { memberById, type MemberRow } from '../members/members.ts';
import type { WriteRunner } from './expiry.ts';
import { pendingPointsOf, postToLedger } from './ledger.ts';

/**
 * Points another programme still held back when a shop switched (LoyaltyLion's pending points):
 * kept beside the ledger, not in the balance, until they become available, when the release pass
 * posts each as an IMPORTED entry (migrations/0029). The ledger invariant is untouched: a pending
 * point is in no balance and no sum until its entry is written.
 */
export interface PendingPoints {
  points: number;
  availableAt: Date;
  /** The import's key, as its IMPORTED entries carry it. */
  referenceId: string;
  description: string;
}

export function addPendingPoints(db: Db, member: MemberRow, pending: PendingPoints, now: Date): void {
  stmt(db, `INSERT INTO pending_points (project_id, member_id, points, available_at, reference_id, description, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)`).run(member.project_id, member.id, pending.points, pending.availableAt.toISOString(), pending.referenceId,
    pending.description, now.toISOString());
}

/** Whether an import (its key) left pending points with the member. */
export const hasPendingFrom = (db: Db, memberId: number, referenceId: string): boolean =>
  stmt(db, 'SELECT 1 FROM pending_points WHERE member_id = ? AND reference_id = ?').pluck().get(memberId, referenceId) !== undefined;

/** Drops the member's pending points (a reset import replaces them; an erasure ends them). Returns how many there were. */
export function dropPendingPoints(db: Db, memberId: number): number {
  const points = pendingPointsOf(db, memberId);
  if (points > 0) stmt(db, 'DELETE FROM pending_points WHERE member_id = ?').run(memberId);
  return points;
}

interface DueRow { id: number; member_id: number; points: number; reference_id: string; description: string }

/**
 * Posts one due row as an IMPORTED entry (the project's expiry rules run from now) and deletes it;
 * an erased member's are just deleted. The rows were read before this write: one another pass (the
 * CLI's beside the server's) released, or a reset import or an erasure dropped, meanwhile is gone
 * and pays nothing.
 */
function releaseRow(db: Db, row: DueRow, now: Date): number {
  return atomically(db, () => {
    if (stmt(db, 'DELETE FROM pending_points WHERE id = ?').run(row.id).changes === 0) return 0;
    const member = memberById(db, row.member_id);
    if (member.erased_at !== null) return 0;
    postToLedger(db, member, {
      amount: row.points, type: 'IMPORTED', source: 'import', actor: 'system', description: row.description, referenceId: row.reference_id,
      metadata: { pending: 'released' },
    }, now);
    return row.points;
  });
}

/**
 * The release pass: pending points whose time has come join their members' balances, `batch` rows
 * per transaction so the write lock is never held long. The server runs it every minute, and
 * `punchcard expire` on demand.
 */
export async function releaseDuePendingPoints(db: Db, write: WriteRunner, now: Date, batch = 200): Promise<{ members: number; points: number }> {
  const report = { members: 0, points: 0 };
  const members = new Set<number>();
  for (;;) {
    const due = stmt<DueRow>(db, `SELECT id, member_id, points, reference_id, description FROM pending_points
      WHERE available_at <= ? ORDER BY available_at, id LIMIT ?`).all(now.toISOString(), batch);
    if (due.length === 0) break;
    const released = await write(() => due.map((row) => releaseRow(db, row, now)));
    due.forEach((row, i) => {
      if (released[i]! > 0) members.add(row.member_id);
    });
    report.points += released.reduce((sum, points) => sum + points, 0);
    if (due.length < batch) break;
  }
  report.members = members.size;
  return report;
}
