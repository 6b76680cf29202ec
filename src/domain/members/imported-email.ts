import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { emitMember, findMember, memberById, memberView, type MemberRow } from './members.ts';

/**
 * Members an import made from a row that named only an email (Smile's and LoyaltyLion's exports
 * know shoppers by email) are keyed by that email until the shop's own id for the shopper turns
 * up. The shop's id is its user id, never the email, so without this the first WooCommerce
 * customer or signed widget sign-in with that email would make a second member beside the one
 * holding the imported points. Instead it takes the imported member over (migrations/0029).
 */
export function markImportedByEmail(db: Db, memberId: number): void {
  stmt(db, 'INSERT OR IGNORE INTO imported_email_members (member_id) VALUES (?)').run(memberId);
}

/** The email as an imported member's externalId: trimmed and lowercased, as stores compare emails. */
export const emailKey = (email: string): string => email.trim().toLowerCase();

/**
 * The member an import made for `email`, re-keyed to `externalId` (the shop's id for the shopper),
 * or undefined when there is none. Only for a shopper the shop vouches for: a store's customer, or
 * a widget sign-in whose email the shop signed. The caller has checked that no member has
 * `externalId` yet. Emits member.updated with `previousExternalId`.
 */
export function adoptImportedMember(db: Db, projectId: string, externalId: string, email: string | null | undefined, now: Date): MemberRow | undefined {
  if (!email) return undefined;
  const key = emailKey(email);
  if (key === externalId) return undefined;
  const imported = findMember(db, projectId, key);
  if (!imported || stmt(db, 'SELECT 1 FROM imported_email_members WHERE member_id = ?').pluck().get(imported.id) === undefined) return undefined;
  return atomically(db, () => {
    stmt(db, 'UPDATE members SET external_id = ?, updated_at = ? WHERE id = ?').run(externalId, now.toISOString(), imported.id);
    stmt(db, 'DELETE FROM imported_email_members WHERE member_id = ?').run(imported.id);
    const row = memberById(db, imported.id);
    emitMember(db, projectId, 'member.updated', memberView(db, row), now, { previousExternalId: key });
    return row;
  });
}
