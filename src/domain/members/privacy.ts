import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { listMemberBadges, type MemberBadge } from '../badges/member-badges.ts';
import { allTransactions, type Transaction } from '../ledger/ledger.ts';
import { emitMember, memberById, memberView, requireMember, type Member, type MemberRow } from './members.ts';
import { memberQuestHistory } from '../quests/quest-progress.ts';
import { countErasure } from '../analytics/figures.ts';

/** Free text written with the member's ledger entries and events: dropped from the member's event payloads. */
const FREE_TEXT_FIELDS = new Set(['description', 'metadata', 'properties']);
/** Shorter strings (an initial, "NY") would redact unrelated text and identify nobody. */
const MIN_PERSONAL_LENGTH = 3;

/** Every string of the member's profile, the metadata's values included, that could identify them. */
function personalStrings(row: MemberRow): string[] {
  const found: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') found.push(value);
    else if (value !== null && typeof value === 'object') Object.values(value).forEach(collect);
  };
  collect([row.external_id === row.public_id ? null : row.external_id, row.email, row.name, row.phone, row.avatar_url, row.date_of_birth,
    JSON.parse(row.metadata)]);
  return [...new Set(found.filter((text) => text.length >= MIN_PERSONAL_LENGTH))];
}

const ERASED = '[erased]';

/**
 * Removes the erased member's personal data from copies made before the erasure: the free text of
 * their ledger entries; event payloads (the externalId becomes the member's public id, as on the
 * member row; other personal values and, in the member's own events, free-text fields become
 * null; text merely containing one is redacted); the last errors of webhook deliveries and
 * endpoints (a receiver may have echoed a payload); and idempotent answers stored as copies. One
 * function, run in the erase transaction, so every place that holds a copy is listed here.
 * Events and stored answers are scanned per project: both are bounded by their retention (the
 * webhook retention, 24 hours).
 */
function scrubCopies(db: Db, row: MemberRow): void {
  const personal = personalStrings(row);
  stmt(db, 'UPDATE transactions SET description = NULL, metadata = NULL WHERE member_id = ? AND (description IS NOT NULL OR metadata IS NOT NULL)').run(row.id);
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
  const needles = JSON.stringify([row.public_id, ...personal].map((text) => JSON.stringify(text).slice(1, -1)));
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
 * Erases a member's personal data (right to erasure), and emits member.updated with the erased
 * view and `erased: true`. The row and its ledger stay, anonymised,
 * so project totals and the ledger invariant still add up; the externalId is freed for reuse.
 */
export function eraseMember(db: Db, projectId: string, externalId: string, now: Date): { success: true; deleted: string } {
  return atomically(db, () => {
    const row = requireMember(db, projectId, externalId);
    scrubCopies(db, row);
    // The externalId may itself be personal (an email, say), so it becomes the member's public id;
    // uniqueness only binds live members, so this never collides.
    stmt(db, `UPDATE members SET external_id = public_id, email = NULL, name = NULL, avatar_url = NULL, phone = NULL,
      date_of_birth = NULL, metadata = '{}', erased_at = @now, updated_at = @now WHERE id = @id`).run({ id: row.id, now: now.toISOString() });
    countErasure(db, projectId, now);
    // Event properties and progress metadata may hold personal data too.
    stmt(db, 'UPDATE quest_progress SET metadata = NULL WHERE member_id = ?').run(row.id);
    // The Discord link: its username is personal, and an erased member's community activity earns nothing more.
    stmt(db, 'DELETE FROM community_links WHERE member_id = ?').run(row.id);
    // Receivers that copied the member's data learn to erase their copy too.
    emitMember(db, projectId, 'member.updated', memberView(db, memberById(db, row.id)), now, { erased: true });
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
