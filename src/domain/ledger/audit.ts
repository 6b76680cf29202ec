import type { Db } from '../../db/connection.ts';

export interface LedgerViolation {
  memberId: string;
  projectId: string;
  problem: string;
}

/**
 * Checks the ledger invariant for every member (of one project, or all):
 * balance == sum of amounts, lifetime earned == sum of positive amounts, the unspent expiring
 * point lots add up to no more than the balance (the rest never expires), and every transaction's `balance` is the running sum up to it.
 * Used by the tests and by `punchcard doctor`; an empty list means the ledger is sound.
 */
export function checkLedger(db: Db, projectId?: string): LedgerViolation[] {
  const scope = projectId === undefined ? '' : 'WHERE m.project_id = @projectId';
  const totals = db.prepare(`
    SELECT m.public_id AS memberId, m.project_id AS projectId, m.points, m.total_points_earned AS earned,
      coalesce((SELECT sum(amount) FROM transactions t WHERE t.member_id = m.id), 0) AS sumAmounts,
      coalesce((SELECT sum(amount) FROM transactions t WHERE t.member_id = m.id AND amount > 0), 0) AS sumPositive,
      coalesce((SELECT sum(remaining) FROM point_lots l WHERE l.member_id = m.id), 0) AS sumLots
    FROM members m ${scope}`).all({ projectId }) as {
    memberId: string; projectId: string; points: number; earned: number; sumAmounts: number; sumPositive: number; sumLots: number;
  }[];
  const violations: LedgerViolation[] = [];
  for (const t of totals) {
    const add = (problem: string) => violations.push({ memberId: t.memberId, projectId: t.projectId, problem });
    if (t.points !== t.sumAmounts) add(`balance ${t.points} != sum of transactions ${t.sumAmounts}`);
    if (t.earned !== t.sumPositive) add(`totalPointsEarned ${t.earned} != sum of awards ${t.sumPositive}`);
    if (t.sumLots > t.points) add(`unspent expiring points ${t.sumLots} exceed the balance ${t.points}`);
  }
  const chain = db.prepare(`
    SELECT (SELECT public_id FROM members m WHERE m.id = member_id) AS memberId, project_id AS projectId, public_id AS id,
      balance, running FROM (
      SELECT t.*, sum(t.amount) OVER (PARTITION BY t.member_id ORDER BY t.id) AS running
      FROM transactions t ${projectId === undefined ? '' : 'WHERE t.project_id = @projectId'})
    WHERE balance <> running`).all({ projectId }) as { memberId: string; projectId: string; id: string; balance: number; running: number }[];
  for (const c of chain) {
    violations.push({ memberId: c.memberId, projectId: c.projectId, problem: `transaction ${c.id} says balance ${c.balance}, running sum is ${c.running}` });
  }
  return violations;
}
