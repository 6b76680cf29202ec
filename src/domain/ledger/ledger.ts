import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { evaluateBadgeCriteria } from '../badges/member-badges.ts';
import { addMs, DAY_MS } from '../../shared/clock.ts';
import { AppError, badRequest, insufficientPoints } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { memberById, memberView, requireMember, type Member, type MemberRow } from '../members/members.ts';
import { projectContext } from '../project/project-context.ts';
import { addToLeaderboards } from '../leaderboard/leaderboard.ts';
import { emit } from '../events/record-event.ts';
import { MAX_POSTING } from '../../shared/value-schemas.ts';
import { countPosting } from '../analytics/figures.ts';

/** IMPORTED: points brought over from another programme (members import), docs/operations.md. */
export type TransactionType = 'EARNED' | 'REDEEMED' | 'SPENT' | 'DEDUCTED' | 'REFUNDED' | 'EXPIRED' | 'IMPORTED';
export type TransactionSource =
  | 'api' | 'quest' | 'event' | 'game' | 'checkin' | 'share' | 'order' | 'community'
  | 'referral' | 'promo' | 'reward' | 'welcome' | 'badge' | 'expiry' | 'import';

interface TransactionRow {
  /** The `txn_…` id the API shows; the integer row id stays internal. */
  public_id: string;
  project_id: string;
  member_id: number;
  amount: number;
  balance: number;
  type: TransactionType;
  source: TransactionSource;
  actor: string;
  description: string | null;
  reference_id: string | null;
  metadata: string | null;
  expires_at: string | null;
  created_at: string;
}

export interface Transaction {
  id: string;
  amount: number;
  balance: number;
  type: TransactionType;
  source: TransactionSource;
  actor: string;
  description: string | null;
  referenceId: string | null;
  metadata: Record<string, unknown> | null;
  expiresAt: string | null;
  createdAt: string;
}

const toTransaction = (row: TransactionRow): Transaction => ({
  id: row.public_id,
  amount: row.amount,
  balance: row.balance,
  type: row.type,
  source: row.source,
  actor: row.actor,
  description: row.description,
  referenceId: row.reference_id,
  metadata: row.metadata === null ? null : (JSON.parse(row.metadata) as Record<string, unknown>),
  expiresAt: row.expires_at,
  createdAt: row.created_at,
});

export interface Posting {
  /** Positive awards, negative deducts. Never zero. */
  amount: number;
  type: TransactionType;
  source: TransactionSource;
  /** Who caused it: a key prefix, `widget`, `cli`, `store:<id>`, `community`, `system`. */
  actor: string;
  description?: string | undefined;
  referenceId?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  /** For awards: when these points expire. Defaults to the project's expiry policy. */
  expiresAt?: Date | undefined;
}

/**
 * The one function that changes a balance. Writes the transaction, updates the member and the
 * expiring point lots in one SQLite transaction. Deductions first expire what is due, then draw
 * from the earliest-expiring points (never-expiring points last), and never take a balance below
 * zero. `member` must have been read in the same transaction.
 */
export function postToLedger(db: Db, member: MemberRow, posting: Posting, now: Date): { transaction: Transaction; member: Member } {
  if (posting.amount > MAX_POSTING) throw awardTooLarge(posting);
  return atomically(db, () => {
    const expired = posting.amount < 0 && posting.type !== 'EXPIRED' ? expireDuePoints(db, member.id, now) : 0;
    const current = expired > 0 ? memberById(db, member.id) : member;
    const balance = current.points + posting.amount;
    if (balance < 0) {
      throw insufficientPoints(`The member has ${current.points} points; ${-posting.amount} cannot be deducted.`);
    }
    const earned = current.total_points_earned + Math.max(posting.amount, 0);
    if (!Number.isSafeInteger(earned)) throw badRequest('This award would take the member past the largest balance Punchcard can hold.');

    const row: TransactionRow = {
      public_id: newId('txn'),
      project_id: current.project_id,
      member_id: current.id,
      amount: posting.amount,
      balance,
      type: posting.type,
      source: posting.source,
      actor: posting.actor,
      description: posting.description ?? null,
      reference_id: posting.referenceId ?? null,
      metadata: posting.metadata === undefined ? null : JSON.stringify(posting.metadata),
      expires_at: posting.amount > 0 ? expiryFor(db, current.project_id, posting.expiresAt, now) : null,
      created_at: now.toISOString(),
    };
    const { lastInsertRowid } = stmt(db, `INSERT INTO transactions (public_id, project_id, member_id, amount, balance, type,
      source, actor, description, reference_id, metadata, expires_at, created_at) VALUES (@public_id, @project_id, @member_id,
      @amount, @balance, @type, @source, @actor, @description, @reference_id, @metadata, @expires_at, @created_at)`).run(row);
    if (posting.amount < 0) drawFromLots(db, current.id, -posting.amount);
    else if (row.expires_at !== null) {
      stmt(db, 'INSERT INTO point_lots (transaction_id, project_id, member_id, remaining, expires_at) VALUES (?, ?, ?, ?, ?)')
        .run(lastInsertRowid, row.project_id, row.member_id, row.amount, row.expires_at);
    }
    // The daily figures count the row in this transaction (src/domain/analytics/figures.ts).
    const activeDay = countPosting(db, current, row, now);
    stmt(db, 'UPDATE members SET points = ?, total_points_earned = ?, updated_at = ?, active_day = ? WHERE id = ?')
      .run(balance, earned, row.created_at, activeDay, current.id);
    const updated = { ...current, points: balance, total_points_earned: earned, updated_at: row.created_at, active_day: activeDay };
    emitPosting(db, updated, row, now);
    if (posting.amount > 0) {
      evaluateBadgeCriteria(db, updated, 'totalPointsEarned', now, { from: current.total_points_earned, to: earned });
      // Points brought over were earned before, elsewhere: lifetime points (the all-time board), not this month's.
      addToLeaderboards(db, current.project_id, current.id, posting.amount, now, posting.type === 'IMPORTED' ? 'all-time' : 'every period');
    }
    return { transaction: toTransaction(row), member: memberView(db, updated) };
  });
}

/**
 * The cap on one award, whatever computed it: multiplier events, bonus roles, a store's points per
 * dollar and product multipliers are all applied before an amount reaches the ledger, so checking
 * here holds on every path. Refused rather than cut to the cap: nothing a loyalty programme pays
 * legitimately comes near it, so an award past it is a misconfiguration or an attack, and paying
 * the cap would still mint a fortune. The caller's transaction rolls back: nothing is written.
 */
function awardTooLarge(posting: Posting): AppError {
  const base = posting.metadata?.basePoints;
  const how = typeof base === 'number' ? ` (${base} points × ${String(posting.metadata?.multiplier)})` : '';
  return new AppError(400, 'award_too_large', `This award of ${posting.amount} points${how} is more than the ${MAX_POSTING.toLocaleString('en-US')} `
    + 'one transaction may hold; nothing was paid or recorded. Lower the points or the multiplier that produced it.');
}

/** points.awarded or points.deducted, whatever the source: every balance change passes here. */
function emitPosting(db: Db, member: MemberRow, row: TransactionRow, now: Date): void {
  const common = {
    memberId: member.public_id,
    externalId: member.external_id,
    newBalance: row.balance,
    transactionId: row.public_id,
    type: row.type,
    source: row.source,
    description: row.description,
    referenceId: row.reference_id,
  };
  if (row.amount > 0) emit(db, row.project_id, 'points.awarded', { ...common, pointsAwarded: row.amount }, now);
  else emit(db, row.project_id, 'points.deducted', { ...common, pointsDeducted: -row.amount }, now);
}

function expiryFor(db: Db, projectId: string, explicit: Date | undefined, now: Date): string | null {
  if (explicit) return explicit.toISOString();
  const days = projectContext(db, projectId).pointsExpiryDays;
  return days ? addMs(now, days * DAY_MS).toISOString() : null;
}

/**
 * Spends `amount` from the member's expiring lots, earliest expiry first. Whatever the lots do not
 * cover comes from never-expiring points, which need no bookkeeping: they are the balance minus
 * the lots.
 */
function drawFromLots(db: Db, memberId: number, amount: number): void {
  const lots = stmt<{ transaction_id: number; remaining: number }>(db, `SELECT transaction_id, remaining FROM point_lots
    WHERE member_id = ? AND remaining > 0 ORDER BY expires_at, transaction_id`).all(memberId);
  const update = stmt(db, 'UPDATE point_lots SET remaining = ? WHERE transaction_id = ?');
  let left = amount;
  for (const lot of lots) {
    if (left === 0) break;
    const take = Math.min(lot.remaining, left);
    update.run(lot.remaining - take, lot.transaction_id);
    left -= take;
  }
}

/**
 * Writes one EXPIRED transaction for what is left of the member's awards that expired at or
 * before `now`. Because spending draws earliest-expiring points first, drawing that sum from the
 * lots empties exactly the expired ones. Returns the points expired (0 when nothing was due).
 */
export function expireDuePoints(db: Db, memberId: number, now: Date): number {
  return atomically(db, () => {
    const due = stmt<{ total: number | null; lots: number }>(db, `SELECT sum(remaining) AS total, count(*) AS lots FROM point_lots
      WHERE member_id = ? AND remaining > 0 AND expires_at <= ?`).get(memberId, now.toISOString())!;
    if (!due.total) return 0;
    postToLedger(db, memberById(db, memberId), {
      amount: -due.total,
      type: 'EXPIRED',
      source: 'expiry',
      actor: 'system',
      description: `${due.total} points expired (${due.lots} award${due.lots === 1 ? '' : 's'})`,
    }, now);
    return due.total;
  });
}

/** Members with points that expired at or before `now`, oldest first, for the expiry pass. */
export function membersWithDuePoints(db: Db, now: Date, limit: number): number[] {
  return stmt<{ member_id: number }>(db, `SELECT DISTINCT member_id FROM point_lots
    WHERE remaining > 0 AND expires_at <= ? ORDER BY expires_at LIMIT ?`)
    .all(now.toISOString(), limit).map((row) => row.member_id);
}

const TRANSACTION_COLUMNS = `SELECT public_id, project_id, member_id, amount, balance, type, source, actor, description, reference_id,
  metadata, expires_at, created_at FROM transactions`;
const TRANSACTION_SELECT = `${TRANSACTION_COLUMNS} WHERE member_id = ?`;

export function recentTransactions(db: Db, memberId: number, limit: number, offset = 0): Transaction[] {
  return stmt<TransactionRow>(db, `${TRANSACTION_SELECT} ORDER BY id DESC LIMIT ? OFFSET ?`)
    .all(memberId, limit, offset).map(toTransaction);
}

export const countTransactions = (db: Db, memberId: number): number =>
  stmt<number>(db, 'SELECT count(*) FROM transactions WHERE member_id = ?').pluck().get(memberId)!;

export function allTransactions(db: Db, memberId: number): Transaction[] {
  return stmt<TransactionRow>(db, `${TRANSACTION_SELECT} ORDER BY id`).all(memberId).map(toTransaction);
}

/** One ledger row by its row id (an idempotent replay's reference), with its member's row id. */
export function transactionByRowId(db: Db, id: number): { transaction: Transaction; memberId: number } | undefined {
  const row = stmt<TransactionRow>(db, `${TRANSACTION_COLUMNS} WHERE id = ?`).get(id);
  return row && { transaction: toTransaction(row), memberId: row.member_id };
}

export interface Adjustment {
  amount: number;
  description?: string | undefined;
  referenceId?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  expiresAt?: Date | undefined;
}

/** A manual award (EARNED) or deduction (DEDUCTED) by an operator, through the API or the CLI. */
export function adjustPoints(db: Db, projectId: string, externalId: string, adjustment: Adjustment, actor: string, now: Date) {
  if (adjustment.expiresAt !== undefined) {
    if (adjustment.amount < 0) throw badRequest('"expiresAt" applies only to awards (positive amounts).');
    if (adjustment.expiresAt <= now) throw badRequest('"expiresAt" must be in the future.');
  }
  return atomically(db, () => postToLedger(db, requireMember(db, projectId, externalId), {
    ...adjustment,
    type: adjustment.amount > 0 ? 'EARNED' : 'DEDUCTED',
    source: 'api',
    actor,
  }, now));
}

/** The member's imported points still pending (pending.ts), 0 when none: in no balance until released. */
export const pendingPointsOf = (db: Db, memberId: number): number =>
  stmt<number>(db, 'SELECT coalesce(sum(points), 0) FROM pending_points WHERE member_id = ?').pluck().get(memberId)!;

export interface PointsSummary {
  points: number;
  /** The SPEC's name for lifetime earnings; `totalPointsEarned` is the same number. */
  totalEarned: number;
  totalPointsEarned: number;
  /** Points brought over from another programme as pending: not in `points` until they become available. */
  pendingPoints: number;
  transactions?: Transaction[];
}

export function pointsSummary(db: Db, projectId: string, externalId: string, query: { history: boolean; limit: number }): PointsSummary {
  const member = requireMember(db, projectId, externalId);
  return {
    points: member.points,
    totalEarned: member.total_points_earned,
    totalPointsEarned: member.total_points_earned,
    pendingPoints: pendingPointsOf(db, member.id),
    ...(query.history ? { transactions: recentTransactions(db, member.id, query.limit) } : {}),
  };
}
