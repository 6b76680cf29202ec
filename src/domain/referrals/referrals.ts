import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { evaluateBadgeCriteria } from '../badges/member-badges.ts';
import { localDate, projectTimeZone } from '../project/calendar.ts';
import { readableCode, uniqueCode } from '../../shared/codes.ts';
import { conflict, forbidden, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { findMember, memberById, memberView, requireMember, upsertMember, type Member, type MemberRow, type MemberProfile } from '../members/members.ts';
import { earn } from '../multipliers/earn.ts';
import { emit } from '../events/record-event.ts';
import { getSettings } from '../project/settings.ts';

export const REFERRAL_CODE_LENGTH = 8;

interface ReferralRow {
  id: number;
  public_id: string;
  referrer_id: number;
  referee_id: number;
  code: string;
  status: 'PENDING' | 'CONVERTED';
  referee_points: number;
  referrer_points: number;
  referrer_rewarded: number;
  created_at: string;
  converted_at: string | null;
}

export interface Referral {
  id: string;
  referralCode: string;
  referrerExternalId: string;
  refereeExternalId: string;
  status: 'PENDING' | 'CONVERTED';
  refereePoints: number;
  referrerPoints: number;
  /** false when the referral converted while the referrer was over a limit: it counts, but paid nothing. */
  referrerRewarded: boolean;
  createdAt: string;
  convertedAt: string | null;
}

const REFERRAL_SELECT = `SELECT id, public_id, referrer_id, referee_id, code, status, referee_points, referrer_points, referrer_rewarded, created_at,
  converted_at FROM referrals`;

const toReferral = (db: Db, row: ReferralRow): Referral => ({
  id: row.public_id,
  referralCode: row.code,
  referrerExternalId: memberById(db, row.referrer_id).external_id,
  refereeExternalId: memberById(db, row.referee_id).external_id,
  status: row.status,
  refereePoints: row.referee_points,
  referrerPoints: row.referrer_points,
  referrerRewarded: row.referrer_rewarded === 1,
  createdAt: row.created_at,
  convertedAt: row.converted_at,
});

// New codes are unique across projects, so a share link `/r/CODE` names one member of one project.
const codeTaken = (db: Db) => (code: string) => stmt(db, 'SELECT 1 FROM referral_codes WHERE code = ?').pluck().get(code) !== undefined;

/** The member's referral code, undefined until they have one. */
const codeOf = (db: Db, memberId: number): string | undefined =>
  stmt<string>(db, 'SELECT code FROM referral_codes WHERE member_id = ?').pluck().get(memberId);

/** The member's referral code, created on first use (8 readable characters from the CSPRNG). */
export function referralCodeFor(db: Db, member: MemberRow, now: Date): string {
  return atomically(db, () => {
    const existing = codeOf(db, member.id);
    if (existing !== undefined) return existing;
    const code = uniqueCode(() => readableCode(REFERRAL_CODE_LENGTH), codeTaken(db));
    stmt(db, 'INSERT INTO referral_codes (member_id, project_id, code, created_at) VALUES (?, ?, ?, ?)').run(member.id, member.project_id, code, now.toISOString());
    return code;
  });
}

/**
 * Gives the member the code they had in another programme (an import), so links already shared
 * keep working. Codes are kept upper-case, as `apply` compares them. A member who already has a
 * code keeps it, and a code another member holds is not taken: `problem` says which.
 */
export function keepReferralCode(db: Db, member: MemberRow, wanted: string, now: Date): { kept: boolean; problem: string | null } {
  const code = wanted.trim().toUpperCase();
  const existing = codeOf(db, member.id);
  if (existing === code) return { kept: false, problem: null };
  if (existing !== undefined) return { kept: false, problem: `keeps the referral code ${existing}; ${code} was not given` };
  if (codeTaken(db)(code)) return { kept: false, problem: `referral code ${code} belongs to another member; none was given` };
  stmt(db, 'INSERT INTO referral_codes (member_id, project_id, code, created_at) VALUES (?, ?, ?, ?)').run(member.id, member.project_id, code, now.toISOString());
  return { kept: true, problem: null };
}

/**
 * Gives the member a new code (the widget's "regenerate"); the old one stops working for new
 * referrals. Referrals already applied keep the code they were made with.
 */
export function regenerateReferralCode(db: Db, projectId: string, externalId: string, publicUrl: string, now: Date): { referralCode: string; shareLink: string } {
  return atomically(db, () => {
    const member = requireMember(db, projectId, externalId);
    stmt(db, 'DELETE FROM referral_codes WHERE member_id = ?').run(member.id);
    const referralCode = referralCodeFor(db, member, now);
    return { referralCode, shareLink: shareLink(db, projectId, referralCode, publicUrl) };
  });
}

/** The shop's referral page with `ref=CODE` added to its query. */
function withRef(referralUrl: string, code: string): string {
  const url = new URL(referralUrl);
  url.searchParams.set('ref', code);
  return url.toString();
}

/**
 * The project's referral URL with `ref=CODE`; while the project has none, this server's own
 * `{publicUrl}/r/CODE`, which redirects there once one is set and shows a landing page until then.
 */
function shareLink(db: Db, projectId: string, code: string, publicUrl: string): string {
  const base = getSettings(db, projectId).referral.referralUrl;
  return base === null ? `${publicUrl.replace(/\/+$/, '')}/r/${encodeURIComponent(code)}` : withRef(base, code);
}

export type ReferralLanding =
  | { found: false }
  | { found: true; projectName: string; code: string; redirectTo: string | null };

/**
 * What `/r/CODE` shows: where to redirect (the project's referral URL with `ref=CODE`), or the
 * project to name on the landing page. An erased member's code and a code two projects share
 * (possible only for codes made before codes were unique across projects) find nothing.
 */
export function referralLanding(db: Db, rawCode: string): ReferralLanding {
  const code = rawCode.trim().toUpperCase();
  const rows = stmt<{ project_id: string; name: string }>(db, `SELECT rc.project_id, p.name FROM referral_codes rc
    JOIN members m ON m.id = rc.member_id JOIN projects p ON p.id = rc.project_id WHERE rc.code = ? AND m.erased_at IS NULL LIMIT 2`).all(code);
  if (rows.length !== 1) return { found: false };
  const { project_id: projectId, name } = rows[0]!;
  const base = getSettings(db, projectId).referral.referralUrl;
  return { found: true, projectName: name, code, redirectTo: base === null ? null : withRef(base, code) };
}

/** YYYY-MM of `now` in the project's time zone: the per-month limit counts calendar months there. */
const monthIn = (db: Db, projectId: string, now: Date): string => localDate(now, projectTimeZone(db, projectId)).slice(0, 7);

interface LimitUse {
  perMonth: number | null;
  total: number | null;
  usedThisMonth: number;
  usedTotal: number;
}

/** The referrer's limits and how many rewarded conversions count against them now. */
function limitUse(db: Db, referrer: MemberRow, now: Date): LimitUse {
  const { perMonth, total } = getSettings(db, referrer.project_id).referral.limits;
  const count = (sql: string, ...params: unknown[]) =>
    stmt<number>(db, `SELECT count(*) FROM referrals WHERE referrer_id = ? AND referrer_rewarded = 1${sql}`).pluck().get(referrer.id, ...params)!;
  return { perMonth, total, usedThisMonth: count(' AND converted_month = ?', monthIn(db, referrer.project_id, now)), usedTotal: count('') };
}

const overLimit = (use: LimitUse) =>
  (use.perMonth !== null && use.usedThisMonth >= use.perMonth) || (use.total !== null && use.usedTotal >= use.total);

/**
 * Converts the referee's PENDING referral, if they have one: pays the referrer (earn(), source
 * `referral`) unless a referrer limit is reached — the referral still converts and counts, it
 * just pays nothing — evaluates the referrer's referralsConverted badges and emits
 * referral.converted. Called on apply (conversion SIGNUP) or by the commerce integration on the
 * referee's first store order (conversion FIRST_ORDER). Returns the points paid to the referrer,
 * or null when there was nothing to convert.
 */
export function convertReferral(db: Db, referee: MemberRow, now: Date): { referral: Referral; referrerPoints: number } | null {
  return atomically(db, () => {
    const row = stmt<ReferralRow>(db, `${REFERRAL_SELECT} WHERE referee_id = ? AND status = 'PENDING'`).get(referee.id);
    if (!row) return null;
    const referrer = memberById(db, row.referrer_id);
    const rewardable = referrer.erased_at === null && !overLimit(limitUse(db, referrer, now));
    const reward = getSettings(db, referee.project_id).referral.referrerReward;
    const paid = rewardable
      ? earn(db, referrer, {
        basePoints: reward, source: 'referral', actor: 'system', description: `Referral converted: ${referee.external_id}`,
        referenceId: row.public_id, metadata: { referralId: row.public_id, role: 'referrer' },
      }, now).pointsAwarded
      : 0;
    stmt(db, `UPDATE referrals SET status = 'CONVERTED', referrer_points = ?, referrer_rewarded = ?, converted_month = ?, converted_at = ? WHERE id = ?`)
      .run(paid, rewardable ? 1 : 0, monthIn(db, referee.project_id, now), now.toISOString(), row.id);
    const converted = stmt<number>(db, "SELECT count(*) FROM referrals WHERE referrer_id = ? AND status = 'CONVERTED'").pluck().get(referrer.id)!;
    evaluateBadgeCriteria(db, memberById(db, referrer.id), 'referralsConverted', now, { from: converted - 1, to: converted });
    const referral = toReferral(db, stmt<ReferralRow>(db, `${REFERRAL_SELECT} WHERE id = ?`).get(row.id)!);
    emit(db, referee.project_id, 'referral.converted', {
      referralId: referral.id, referralCode: referral.referralCode, referrerExternalId: referral.referrerExternalId,
      refereeExternalId: referral.refereeExternalId, referrerPoints: paid, referrerRewarded: rewardable,
    }, now);
    return { referral, referrerPoints: paid };
  });
}

export interface ApplyInput {
  externalId: string;
  referralCode: string;
  email?: string | null | undefined;
  name?: string | null | undefined;
}

/**
 * POST /referrals/apply (and the widget's sign-up flow): creates the referee if needed, records
 * the referral, pays the referee (earn(), source `referral`), and converts at once when the
 * project converts at sign-up. Unknown code 404, own code 403, already referred 409.
 */
export function applyReferral(db: Db, projectId: string, input: ApplyInput, actor: string, now: Date):
  { success: true; referral: Referral; member: Member; rewardsAwarded: { referrer: number; referee: number } } {
  return atomically(db, () => {
    const code = input.referralCode.trim().toUpperCase();
    // An erased member's code no longer refers anyone.
    const referrerId = stmt<number>(db, `SELECT rc.member_id FROM referral_codes rc JOIN members m ON m.id = rc.member_id
      WHERE rc.project_id = ? AND rc.code = ? AND m.erased_at IS NULL`).pluck().get(projectId, code);
    if (referrerId === undefined) throw notFound(`No referral code "${input.referralCode}" in this project`);
    if (!findMember(db, projectId, input.externalId)) {
      const profile: MemberProfile & { externalId: string } = { externalId: input.externalId };
      if (input.email !== undefined) profile.email = input.email;
      if (input.name !== undefined) profile.name = input.name;
      upsertMember(db, projectId, profile, now);
    }
    const referee = requireMember(db, projectId, input.externalId);
    if (referee.id === referrerId) throw forbidden('A member cannot apply their own referral code.');
    if (stmt(db, 'SELECT 1 FROM referrals WHERE referee_id = ?').pluck().get(referee.id) !== undefined) {
      throw conflict(`The member "${referee.external_id}" has already been referred.`);
    }
    const settings = getSettings(db, projectId).referral;
    const publicId = newId('ref');
    const { lastInsertRowid } = stmt(db, `INSERT INTO referrals (public_id, project_id, referrer_id, referee_id, code, status, created_at)
      VALUES (?, ?, ?, ?, ?, 'PENDING', ?)`).run(publicId, projectId, referrerId, referee.id, code, now.toISOString());
    const refereePoints = earn(db, referee, {
      basePoints: settings.refereeReward, source: 'referral', actor, description: 'Referral welcome reward', referenceId: publicId,
      metadata: { referralId: publicId, role: 'referee' },
    }, now).pointsAwarded;
    stmt(db, 'UPDATE referrals SET referee_points = ? WHERE id = ?').run(refereePoints, lastInsertRowid);
    const converted = settings.conversion === 'SIGNUP' ? convertReferral(db, memberById(db, referee.id), now) : null;
    const row = stmt<ReferralRow>(db, `${REFERRAL_SELECT} WHERE id = ?`).get(lastInsertRowid)!;
    return {
      success: true,
      referral: toReferral(db, row),
      member: memberView(db, memberById(db, referee.id)),
      rewardsAwarded: { referrer: converted?.referrerPoints ?? 0, referee: refereePoints },
    };
  });
}

/** GET /referrals/stats/{externalId} (and the widget's GET /referral): creates the code on first use. */
export function referralStats(db: Db, projectId: string, externalId: string, publicUrl: string, now: Date) {
  return atomically(db, () => {
    const member = requireMember(db, projectId, externalId);
    const referralCode = referralCodeFor(db, member, now);
    const { referrerReward, refereeReward } = getSettings(db, projectId).referral;
    return {
      referralCode,
      shareLink: shareLink(db, projectId, referralCode, publicUrl),
      stats: referralCounts(db, member.id),
      rewards: { referrerReward, refereeReward },
      limits: limitUse(db, member, now),
    };
  });
}

/** What a member's referrals came to: made, pending, converted, and the points they earned the referrer. */
function referralCounts(db: Db, memberId: number) {
  const stats = stmt<{ total: number; pending: number | null; converted: number | null; earned: number | null }>(db, `SELECT count(*) AS total,
    sum(status = 'PENDING') AS pending, sum(status = 'CONVERTED') AS converted, sum(referrer_points) AS earned FROM referrals WHERE referrer_id = ?`)
    .get(memberId)!;
  return { totalReferrals: stats.total, pendingReferrals: stats.pending ?? 0, convertedReferrals: stats.converted ?? 0, totalPointsEarned: stats.earned ?? 0 };
}

/** The member's code (null until they first share) and referral counts, read only: for the admin's profile. */
export function referralSummary(db: Db, member: MemberRow): { referralCode: string | null; stats: ReturnType<typeof referralCounts> } {
  const referralCode = codeOf(db, member.id) ?? null;
  return { referralCode, stats: referralCounts(db, member.id) };
}
