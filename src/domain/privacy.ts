import type { Db } from '../db/connection.ts';
import { stmt } from '../db/statements.ts';
import { atomically } from '../db/transaction.ts';
import { listMemberBadges, type MemberBadge } from './badges.ts';
import { allTransactions, type Transaction } from './ledger.ts';
import { emitMember, memberById, requireMember, toMember, type Member } from './members.ts';
import { memberQuestHistory } from './quests.ts';

/**
 * Erases a member's personal data (right to erasure), and emits member.updated with the erased
 * view and `erased: true`. The row and its ledger stay, anonymised,
 * so project totals and the ledger invariant still add up; the externalId is freed for reuse.
 */
export function eraseMember(db: Db, projectId: string, externalId: string, now: Date): { success: true; deleted: string } {
  return atomically(db, () => {
    const row = requireMember(db, projectId, externalId);
    // The externalId may itself be personal (an email, say), so it becomes the member's public id;
    // uniqueness only binds live members, so this never collides.
    stmt(db, `UPDATE members SET external_id = public_id, email = NULL, name = NULL, avatar_url = NULL, phone = NULL,
      date_of_birth = NULL, metadata = '{}', erased_at = @now, updated_at = @now WHERE id = @id`).run({ id: row.id, now: now.toISOString() });
    // Event properties and progress metadata may hold personal data too.
    stmt(db, 'UPDATE quest_progress SET metadata = NULL WHERE member_id = ?').run(row.id);
    // Receivers that copied the member's data learn to erase their copy too.
    emitMember(db, projectId, 'member.updated', toMember(db, memberById(db, row.id)), now, { erased: true });
    return { success: true, deleted: externalId };
  });
}

export interface MemberExport {
  exportedAt: string;
  member: Member & { phone: string | null; dateOfBirth: string | null; updatedAt: string };
  transactions: Transaction[];
  badges: MemberBadge[];
  quests: ReturnType<typeof memberQuestHistory>;
}

/** Everything Punchcard holds about one member, for a data-subject access request. */
export function exportMember(db: Db, projectId: string, externalId: string, now: Date): MemberExport {
  const row = requireMember(db, projectId, externalId);
  return {
    exportedAt: now.toISOString(),
    member: { ...toMember(db, row), phone: row.phone, dateOfBirth: row.date_of_birth, updatedAt: row.updated_at },
    transactions: allTransactions(db, row.id),
    badges: listMemberBadges(db, projectId, externalId).badges,
    quests: memberQuestHistory(db, row.id),
  };
}
