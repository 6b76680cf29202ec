import type { Db } from '../../db/connection.ts';
import { beforeCommit } from '../../db/transaction-hooks.ts';
import { rewriteAuditEntries, type AuditSummary } from '../audit/audit-log.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { listMemberBadges, type MemberBadge } from '../badges/member-badges.ts';
import { allTransactions, type Transaction } from '../ledger/ledger.ts';
import { dropPendingPoints } from '../ledger/pending.ts';
import { emitMember, memberById, memberView, requireMember, type Member, type MemberRow } from './members.ts';
import { memberQuestHistory } from '../quests/quest-progress.ts';
import { countErasure } from '../analytics/figures.ts';
import { noteErasure } from './erasure-sweep.ts';

/** Free text and references written with the member's ledger entries, events and audit entries: dropped from the member's own (payloads, summaries). */
const FREE_TEXT_FIELDS = new Set(['description', 'metadata', 'properties', 'referenceId', 'reason', 'note']);
/** Shorter strings (an initial, "NY") would redact unrelated text and identify nobody. */
const MIN_PERSONAL_LENGTH = 3;

/** The member's community (Discord) accounts: the one linked now and any their events were credited from. */
interface CommunityAccounts {
  ids: string[];
  usernames: string[];
}

function communityAccounts(db: Db, row: MemberRow): CommunityAccounts {
  const links = stmt<{ community_user_id: string; username: string | null }>(db,
    'SELECT community_user_id, username FROM community_links WHERE member_id = ?').all(row.id);
  const credited = stmt<string>(db, `SELECT DISTINCT community_user_id FROM community_events
    WHERE project_id = ? AND member_id = ? AND community_user_id IS NOT NULL`).pluck().all(row.project_id, row.id);
  return {
    ids: [...new Set([...links.map((link) => link.community_user_id), ...credited])],
    usernames: links.flatMap((link) => (link.username === null ? [] : [link.username])),
  };
}

/**
 * Every string of the member's profile, the metadata's values included, and their community
 * accounts' ids and names: what could identify them.
 */
function personalStrings(row: MemberRow, accounts: CommunityAccounts): string[] {
  const found: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') found.push(value);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(collect);
  };
  collect([row.external_id === row.public_id ? null : row.external_id, row.email, row.name, row.phone, row.avatar_url, row.date_of_birth,
    JSON.parse(row.metadata), accounts.ids, accounts.usernames]);
  return [...new Set(found.filter((text) => text.length >= MIN_PERSONAL_LENGTH))];
}

const ERASED = '[erased]';

/** How the erased member's data is taken out of a copy: their personal values, and in their own records free text too. */
function redactions(row: MemberRow, personal: string[]) {
  const redactText = (text: string) => personal.reduce((out, value) => out.replaceAll(value, ERASED), text);
  const redact = (value: unknown, own: boolean): unknown => {
    if (typeof value === 'string') {
      if (value === row.external_id) return row.public_id;
      return personal.includes(value) ? null : redactText(value);
    }
    if (Array.isArray(value)) return value.map((item) => redact(item, own));
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, own && FREE_TEXT_FIELDS.has(key) ? null : redact(item, own)]));
    }
    return value;
  };
  // JSON escapes some characters, so look for each value as JSON writes it.
  const asJson = [row.public_id, ...personal].map((text) => JSON.stringify(text).slice(1, -1));
  return { redactText, redact, asJson };
}

/**
 * The audit log keeps the erasure and the changes before it, without the member's data: entries
 * that named their externalId name their public id, and the member's own entries lose their free
 * text (a reason, a description). Run at the end of the erasing transaction, after the entry that
 * records the erasure itself is written.
 */
function scrubAudit(db: Db, row: MemberRow, personal: string[]): void {
  const { redact, asJson } = redactions(row, personal);
  rewriteAuditEntries(db, row.project_id, { target: row.external_id, needles: asJson.slice(1) }, ({ target, summary }) => {
    const own = target === row.external_id;
    return { target: own ? row.public_id : (redact(target, false) as string), summary: redact(summary, own) as AuditSummary };
  });
}

/**
 * Removes the erased member's personal data from copies made before the erasure: the free text and
 * references of their ledger entries (a reference can name a store order or a Discord account);
 * event payloads (the externalId becomes the member's public id, as on the member row; other
 * personal values and, in the member's own events, free-text fields become null; text merely
 * containing one is redacted); the last errors of webhook deliveries and endpoints (a receiver may
 * have echoed a payload); and idempotent answers stored as copies. Events and stored answers are
 * scanned per project: both are bounded by their retention (the webhook retention, 24 hours).
 */
function scrubCopies(db: Db, row: MemberRow, personal: string[]): void {
  const { redactText, redact, asJson } = redactions(row, personal);
  stmt(db, `UPDATE transactions SET description = NULL, metadata = NULL, reference_id = NULL
    WHERE member_id = ? AND (description IS NOT NULL OR metadata IS NOT NULL OR reference_id IS NOT NULL)`).run(row.id);
  const needles = JSON.stringify(asJson);
  const mentions = (column: string) => `EXISTS (SELECT 1 FROM json_each(@needles) n WHERE instr(${column}, n.value) > 0)`;
  const events = stmt<{ id: number; data: string }>(db, `SELECT id, data FROM events WHERE project_id = @projectId AND ${mentions('data')}`)
    .all({ projectId: row.project_id, needles });
  const rewriteEvent = stmt(db, 'UPDATE events SET data = ? WHERE id = ?');
  for (const event of events) {
    const data = JSON.parse(event.data) as Record<string, unknown>;
    rewriteEvent.run(JSON.stringify(redact(data, data.memberId === row.public_id)), event.id);
  }
  const plainNeedles = JSON.stringify(personal);
  for (const table of ['webhook_deliveries', 'webhooks']) {
    const rows = stmt<{ id: number | string; last_error: string }>(db,
      `SELECT id, last_error FROM ${table} WHERE project_id = @projectId AND last_error IS NOT NULL AND ${mentions('last_error')}`)
      .all({ projectId: row.project_id, needles: plainNeedles });
    const rewrite = stmt(db, `UPDATE ${table} SET last_error = ? WHERE id = ?`);
    for (const found of rows) rewrite.run(redactText(found.last_error), found.id);
  }
  const answers = stmt<{ id: number; body: string }>(db,
    `SELECT id, body FROM idempotency_keys WHERE project_id = @projectId AND body IS NOT NULL AND ${mentions('body')}`)
    .all({ projectId: row.project_id, needles });
  const rewriteAnswer = stmt(db, 'UPDATE idempotency_keys SET body = ? WHERE id = ?');
  for (const answer of answers) rewriteAnswer.run(JSON.stringify(redact(JSON.parse(answer.body), false)), answer.id);
}

/**
 * Cuts the links between the member and the accounts other systems know them by: a Discord
 * account (its link, its events in the log, its one-time awards: the account is a new stranger
 * if it comes back), a store customer (a later order of theirs makes a new member), a store's
 * orders (kept for their points, linked to nobody) and coupons (the job stops; the email and the
 * codes, which the store ties to the email, go).
 */
function unlinkAccounts(db: Db, row: MemberRow, accounts: CommunityAccounts, now: Date): void {
  const ids = JSON.stringify(accounts.ids);
  stmt(db, `DELETE FROM community_events WHERE project_id = ? AND (member_id = ? OR community_user_id IN (SELECT value FROM json_each(?)))`)
    .run(row.project_id, row.id, ids);
  stmt(db, 'DELETE FROM community_once WHERE project_id = ? AND community_user_id IN (SELECT value FROM json_each(?))').run(row.project_id, ids);
  stmt(db, 'DELETE FROM community_links WHERE member_id = ?').run(row.id);
  stmt(db, 'DELETE FROM commerce_customers WHERE member_id = ?').run(row.id);
  stmt(db, "UPDATE commerce_orders SET member_id = NULL, excluded = 'the member was erased', updated_at = ? WHERE member_id = ?").run(now.toISOString(), row.id);
  // A coupon job still running finds its row gone and records nothing.
  stmt(db, 'DELETE FROM commerce_coupons WHERE claim_id IN (SELECT id FROM reward_claims WHERE member_id = ?)').run(row.id);
  stmt(db, 'UPDATE reward_claims SET coupon_code = NULL WHERE member_id = ? AND coupon_code IS NOT NULL').run(row.id);
}

/**
 * Erases a member's personal data (right to erasure), and emits member.updated with the erased
 * view and `erased: true`. The row and its ledger stay, anonymised, so project totals and the
 * ledger invariant still add up; the externalId is freed for reuse. One function, run in one
 * transaction, so every table that holds a copy or a link is handled here
 * (test/security/data-care.test.ts checks the list against the schema).
 */
export function eraseMember(db: Db, projectId: string, externalId: string, now: Date): { success: true; deleted: string } {
  return atomically(db, () => {
    const row = requireMember(db, projectId, externalId);
    const accounts = communityAccounts(db, row);
    const personal = personalStrings(row, accounts);
    scrubCopies(db, row, personal);
    unlinkAccounts(db, row, accounts, now);
    // The externalId may itself be personal (an email, say), so it becomes the member's public id;
    // uniqueness only binds live members, so this never collides.
    stmt(db, `UPDATE members SET external_id = public_id, email = NULL, name = NULL, avatar_url = NULL, phone = NULL,
      date_of_birth = NULL, metadata = '{}', erased_at = @now, updated_at = @now WHERE id = @id`).run({ id: row.id, now: now.toISOString() });
    countErasure(db, projectId, now);
    // The search index keeps the member's old entries until it is merged: the next sweep does that (erasure-sweep.ts).
    noteErasure(db);
    // Event properties and progress metadata may hold personal data too.
    stmt(db, 'UPDATE quest_progress SET metadata = NULL WHERE member_id = ?').run(row.id);
    // Imported points still pending would otherwise join the anonymised balance later; an erased member is taken over by no one.
    dropPendingPoints(db, row.id);
    stmt(db, 'DELETE FROM imported_email_members WHERE member_id = ?').run(row.id);
    // Receivers that copied the member's data learn to erase their copy too.
    emitMember(db, projectId, 'member.updated', memberView(db, memberById(db, row.id)), now, { erased: true });
    // The audit log keeps the erasure but not the externalId: at the end of the transaction, after the entry that records it is written.
    beforeCommit(db, `forget ${row.public_id} in the audit log`, () => {
      if (memberById(db, row.id).erased_at !== null) scrubAudit(db, row, personal);
    });
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
    member: { ...memberView(db, row), phone: row.phone, dateOfBirth: row.date_of_birth, updatedAt: row.updated_at },
    transactions: allTransactions(db, row.id),
    badges: listMemberBadges(db, projectId, externalId).badges,
    quests: memberQuestHistory(db, row.id),
  };
}
