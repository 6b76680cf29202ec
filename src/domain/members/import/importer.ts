import type { Db } from '../../../db/connection.ts';
import { stmt } from '../../../db/statements.ts';
import { atomically } from '../../../db/transaction.ts';
import { addMs, DAY_MS } from '../../../shared/clock.ts';
import { badRequest } from '../../../shared/errors.ts';
import type { Level } from '../../catalog/level-kind.ts';
import { levelFor } from '../../levels/member-level.ts';
import { expireDuePoints, pendingPointsOf, postToLedger } from '../../ledger/ledger.ts';
import { addPendingPoints, dropPendingPoints, hasPendingFrom } from '../../ledger/pending.ts';
import { wallClockInstant } from '../../project/calendar.ts';
import { projectContext } from '../../project/project-context.ts';
import { keepReferralCode } from '../../referrals/referrals.ts';
import { adoptImportedMember, emailKey, markImportedByEmail } from '../imported-email.ts';
import { createMember, findMember, memberByEmail, memberById, updateMember, type MemberProfile, type MemberRow } from '../members.ts';

/**
 * One member to import, validated (src/schemas/member-import.ts): from a file through its
 * programme's columns, a JSON line, or a row of POST /members/import. Dates are still text: the
 * importer reads them in the project's time zone.
 */
export interface ImportRow {
  externalId?: string | undefined;
  email?: string | undefined;
  name?: string | undefined;
  balance: number;
  pending: number;
  /** A level number, or a level's (tier's) name. */
  level?: number | string | undefined;
  joinedAt?: string | undefined;
  /** YYYY-MM-DD */
  birthday?: string | undefined;
  pointsExpireAt?: string | undefined;
  referralCode?: string | undefined;
}

/** How one import writes its rows: the same for a file's every row, or a request's. */

/** The longest pending points may wait, in the CLI and the API alike: ten years (a much larger number is no longer a date). */
export const MAX_PENDING_DAYS = 3650;
export interface ImportSettings {
  projectId: string;
  /** add: the row's points are added to what the member holds, once per import; reset: the balance becomes the row's. */
  mode: 'add' | 'reset';
  /** What makes the import one import: each member gets at most one entry of it in add mode (the file's fingerprint, or the batch's key). */
  importKey: string;
  /** The programme's name in descriptions ("Smile"). */
  label: string;
  /** Where the rows came from, for descriptions and metadata: the file's name, or the batch. */
  origin: string;
  actor: string;
  /** Pending points (LoyaltyLion's) stay pending this many days, or join the balance at once. */
  pending: { as: 'pending'; days: number } | { as: 'available' };
}

export type RowOutcome = 'new' | 'updated' | 'unchanged';

/** What one row did (or, in a dry run, would do). */
export interface RowReport {
  outcome: RowOutcome;
  memberId: string;
  externalId: string;
  /** Points this row added to the balance (negative: a reset took them). */
  points: number;
  /** Points this row left pending. */
  pending: number;
  /** The member's balance after the row. */
  balance: number;
  /** What the row could not do as it says, the rest done: a level the project lacks, a referral code taken, a balance imported before. */
  warnings: string[];
}

/** What an import did, counted over its rows: a batch's summary, and `members import`'s. */
export interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
  skipped: number;
  /** Points the rows added to balances (a reset may take some: then negative). */
  pointsImported: number;
  pendingImported: number;
}

export const noImportCounts = (): ImportCounts => ({ created: 0, updated: 0, unchanged: 0, skipped: 0, pointsImported: 0, pendingImported: 0 });

/** Adds what one imported row did to the counts. */
export function countRow(counts: ImportCounts, report: RowReport): void {
  counts[report.outcome === 'new' ? 'created' : report.outcome]++;
  counts.pointsImported += report.points;
  counts.pendingImported += report.pending;
}

/** Who a row names, once per import: its externalId, or the email an email-keyed member is keyed by. */
export const rowIdentity = (row: ImportRow): string => (row.externalId !== undefined ? `id:${row.externalId}` : `email:${emailKey(row.email!)}`);

/** That identity as an error names it: `externalId "123"`, `email kim@example.com`. */
export const describeRowIdentity = (row: ImportRow): string => (row.externalId !== undefined ? `externalId "${row.externalId}"` : `email ${row.email}`);

/** The project's sum of balances: an import's summary shows it before and after. */
export const sumOfBalances = (db: Db, projectId: string): number =>
  stmt<number>(db, 'SELECT coalesce(sum(points), 0) FROM members WHERE project_id = ?').pluck().get(projectId)!;

/** The reference of an import's ledger entries and pending points. */
const importReference = (importKey: string) => `import:${importKey}`;

const ZONED = /(?:Z|[+-]\d{2}:?\d{2})$/i;

/**
 * An import date as an instant: a date alone is midnight in the project's time zone (spreadsheets
 * write dates that way), a date-time without a zone is that wall-clock time there.
 */
function importInstant(text: string, timeZone: string, field: string): Date {
  const [date, time = '00:00:00'] = text.split(/[T ]/i) as [string, string?];
  const zoned = ZONED.test(time);
  const instant = zoned
    ? new Date(`${date}T${time.replace(/([+-]\d{2})(\d{2})$/, '$1:$2')}`)
    : wallClockInstant(`${date}T${time.length === 5 ? `${time}:00` : time}`, timeZone);
  const real = new Date(`${date}T00:00:00Z`);
  if (Number.isNaN(instant.getTime()) || Number.isNaN(real.getTime()) || !real.toISOString().startsWith(date)) {
    throw badRequest(`"${field}" is not a real date: ${text}`);
  }
  return instant;
}

/** The project level a file names (a number, or a name compared without regard to case and spaces), or why there is none. */
function projectLevel(levels: readonly Level[], wanted: number | string): { level: number } | string {
  const key = (name: string) => name.toLowerCase().replace(/\s+/g, '');
  if (wanted === 0 || (typeof wanted === 'string' && wanted.trim() === '0')) return { level: 0 };
  const found = levels.find((l) => (typeof wanted === 'number' ? l.level === wanted : key(l.name) === key(wanted) || String(l.level) === wanted.trim()));
  return found ?? `level "${wanted}" is not one of the project's levels (${levels.map((l) => `${l.level} ${l.name}`).join(', ') || 'it has none'}); none was kept`;
}

/** What an earlier run of the same import gave the member, or undefined when it gave nothing. */
const importedBefore = (db: Db, memberId: number, reference: string): number | undefined =>
  stmt<number>(db, `SELECT amount FROM transactions WHERE member_id = ? AND type = 'IMPORTED' AND reference_id = ? LIMIT 1`).pluck()
    .get(memberId, reference) ?? (hasPendingFrom(db, memberId, reference) ? 0 : undefined);

interface Found { member: MemberRow; created: boolean }

/**
 * The member a row names. By externalId (an imported email-keyed member with the row's email is
 * taken over); else by email: the member keyed by it, or the earliest member with it; else a new
 * member keyed by the email, marked so the shop's own id for the shopper takes it over later.
 */
function memberFor(db: Db, projectId: string, row: ImportRow, joinedAt: Date | undefined, now: Date): Found {
  const existing = row.externalId !== undefined
    ? findMember(db, projectId, row.externalId) ?? adoptImportedMember(db, projectId, row.externalId, row.email, now)
    : findMember(db, projectId, emailKey(row.email!)) ?? memberByEmail(db, projectId, row.email!);
  if (existing) return { member: existing, created: false };
  const externalId = row.externalId ?? emailKey(row.email!);
  const profile: MemberProfile = { ...(row.email !== undefined ? { email: row.email } : {}), ...(row.name !== undefined ? { name: row.name } : {}),
    ...(row.birthday !== undefined ? { dateOfBirth: row.birthday } : {}) };
  // Created when they joined the old programme: member lists sort by it, the figures count them then.
  const member = createMember(db, projectId, externalId, profile, now, joinedAt);
  if (row.externalId === undefined) markImportedByEmail(db, member.id);
  return { member, created: true };
}

/** Profile fields the row gives that the member does not have yet as it says. */
function profileChanges(member: MemberRow, row: ImportRow): MemberProfile {
  const changes: MemberProfile = {};
  // A row found by email says nothing new about the email.
  if (row.externalId !== undefined && row.email !== undefined && row.email !== member.email) changes.email = row.email;
  if (row.name !== undefined && row.name !== member.name) changes.name = row.name;
  if (row.birthday !== undefined && row.birthday !== member.date_of_birth) changes.dateOfBirth = row.birthday;
  return changes;
}

/** The row's dates as instants in the project's time zone; throws (400) for one that is not a real date, or an expiry not in the future. */
export function checkRowDates(row: ImportRow, timeZone: string, now: Date): { joinedAt?: Date | undefined; expiresAt?: Date | undefined } {
  const joinedAt = row.joinedAt === undefined ? undefined : importInstant(row.joinedAt, timeZone, 'joinedAt');
  const expiresAt = row.pointsExpireAt === undefined ? undefined : importInstant(row.pointsExpireAt, timeZone, 'pointsExpireAt');
  if (expiresAt && expiresAt <= now) throw badRequest(`"pointsExpireAt" must be in the future (${row.pointsExpireAt})`);
  return { joinedAt, expiresAt };
}

/**
 * Imports one member: creates or finds them, brings their profile up to the row, and writes the
 * opening balance as one IMPORTED ledger entry through postToLedger (the project's expiry rules run
 * from now, or the row's pointsExpireAt). In add mode a member gets at most one entry per import
 * key, so a re-run (or a corrected copy of a file) adds nothing twice; in reset mode the balance
 * becomes the row's, by one entry of the difference, so a repeat finds nothing to do. One
 * transaction (a savepoint inside a batch): a row that fails undoes only itself. Throws AppError
 * for a row that cannot be imported.
 */
export function importRow(db: Db, settings: ImportSettings, row: ImportRow, line: string, now: Date): RowReport {
  return atomically(db, () => {
    const { timeZone, levels } = projectContext(db, settings.projectId);
    const { joinedAt, expiresAt } = checkRowDates(row, timeZone, now);
    const warnings: string[] = [];
    const { member: found, created } = memberFor(db, settings.projectId, row, joinedAt, now);
    // The member's row as this row's writes leave it: read again only where another function wrote it.
    let current = found;
    let changed = false;
    const changes = created ? {} : profileChanges(found, row);
    if (Object.keys(changes).length > 0) {
      updateMember(db, settings.projectId, found.external_id, changes, now);
      current = memberById(db, found.id);
      changed = true;
    }

    const reference = importReference(settings.importKey);
    const where = `${settings.origin}${line ? `, ${line}` : ''}`;
    const available = settings.pending.as === 'available' ? row.balance + row.pending : row.balance;
    const pending = settings.pending.as === 'pending' ? row.pending : 0;
    let points = 0;
    let pendingAdded = 0;
    const post = (amount: number, description: string) => {
      const { member } = postToLedger(db, current, {
        amount, type: 'IMPORTED', source: 'import', actor: settings.actor, description, referenceId: reference, expiresAt,
        metadata: { source: settings.label, from: where, ...(settings.pending.as === 'available' && row.pending > 0 ? { pendingMadeAvailable: row.pending } : {}) },
      }, now);
      current = { ...current, points: member.points, total_points_earned: member.totalPointsEarned };
      points += amount;
    };
    const leavePending = (days: number) => {
      addPendingPoints(db, current, {
        points: pending, availableAt: addMs(now, days * DAY_MS), referenceId: reference, description: `Pending points from ${settings.label} (${where})`,
      }, now);
      pendingAdded = pending;
    };

    if (settings.mode === 'add') {
      const before = created ? undefined : importedBefore(db, found.id, reference);
      if (before !== undefined) {
        if (before !== available) warnings.push(`already has ${before} points from this import; the ${available} this row says were not added again`);
      } else {
        if (available > 0) post(available, `Opening balance from ${settings.label} (${where})`);
        if (pending > 0 && settings.pending.as === 'pending') leavePending(settings.pending.days);
      }
    } else {
      // The balance the shopper has now: what is due to expire goes first, as a deduction would.
      if (expireDuePoints(db, found.id, now) > 0) current = memberById(db, found.id);
      const difference = available - current.points;
      if (difference !== 0) post(difference, `Balance set to ${available} from ${settings.label} (${where})`);
      if (settings.pending.as === 'pending') {
        if (pendingPointsOf(db, found.id) !== pending) {
          dropPendingPoints(db, found.id);
          if (pending > 0) leavePending(settings.pending.days);
          else changed = true;
        }
      }
    }

    if (row.level !== undefined) {
      const wanted = projectLevel(levels, row.level);
      if (typeof wanted === 'string') warnings.push(wanted);
      else if (wanted.level > levelFor(levels, current.total_points_earned, current.level_floor).level) {
        // The tier they had: kept as the member's lowest level (levels otherwise follow lifetime points).
        stmt(db, 'UPDATE members SET level_floor = ? WHERE id = ?').run(wanted.level, found.id);
        changed = true;
      }
    }
    if (row.referralCode !== undefined) {
      const { kept, problem } = keepReferralCode(db, current, row.referralCode, now);
      if (problem) warnings.push(problem);
      changed ||= kept;
    }

    const outcome: RowOutcome = created ? 'new' : changed || points !== 0 || pendingAdded !== 0 ? 'updated' : 'unchanged';
    return { outcome, memberId: current.public_id, externalId: current.external_id, points, pending: pendingAdded, balance: current.points, warnings };
  });
}
