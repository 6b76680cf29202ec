import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { localDate, nextLocalMidnight, projectTimeZone, tooSoon } from '../project/calendar.ts';
import { badRequest } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { memberById, requireMember, type MemberRow } from '../members/members.ts';
import { earn } from '../multipliers/earn.ts';
import { getSettings, type Settings } from '../project/settings.ts';

/**
 * Social sharing pays `pointsPerShare` (project settings) per share, at most `maxSharesPerDay`
 * per calendar day in the project's time zone and not within `cooldownMinutes` of the previous
 * share. Punchcard cannot see the share itself; the widget reports it when the member shares.
 */

/** The SPEC calls X by its former name; both are accepted and recorded as `x`. */
const platformName = (platform: string) => (platform === 'twitter' ? 'x' : platform);

interface ShareState {
  settings: Settings['socialShare'];
  timeZone: string;
  today: string;
  todayShares: number;
  /** When the cooldown since the last share ends; null when there is none now. */
  cooldownEndsAt: Date | null;
}

function shareState(db: Db, member: MemberRow, now: Date): ShareState {
  const settings = getSettings(db, member.project_id).socialShare;
  const timeZone = projectTimeZone(db, member.project_id);
  const today = localDate(now, timeZone);
  const todayShares = stmt<number>(db, 'SELECT count(*) FROM social_shares WHERE member_id = ? AND local_day = ?').pluck().get(member.id, today)!;
  const last = stmt<string>(db, 'SELECT shared_at FROM social_shares WHERE member_id = ? ORDER BY local_day DESC, shared_at DESC LIMIT 1')
    .pluck().get(member.id);
  const endsAt = last === undefined ? null : new Date(Date.parse(last) + settings.cooldownMinutes * 60_000);
  return { settings, timeZone, today, todayShares, cooldownEndsAt: endsAt !== null && endsAt > now ? endsAt : null };
}

export interface ShareStatus {
  platforms: string[];
  pointsPerShare: number;
  maxSharesPerDay: number;
  cooldownMinutes: number;
  todayShares: number;
  canShare: boolean;
  cooldownEndsAt: string | null;
}

/** GET …/social-share: what sharing pays and whether the member may share for points now. */
export function shareStatus(db: Db, projectId: string, externalId: string, now: Date): ShareStatus {
  const state = shareState(db, requireMember(db, projectId, externalId), now);
  const { platforms, pointsPerShare, maxSharesPerDay, cooldownMinutes } = state.settings;
  return {
    platforms, pointsPerShare, maxSharesPerDay, cooldownMinutes,
    todayShares: state.todayShares,
    canShare: state.todayShares < maxSharesPerDay && state.cooldownEndsAt === null,
    cooldownEndsAt: state.cooldownEndsAt?.toISOString() ?? null,
  };
}

export interface ShareInput {
  platform: string;
  shareType?: string | undefined;
}

/**
 * POST …/social-share, in one transaction: 400 for a platform the project does not offer, 429 with
 * Retry-After over the daily limit (until local midnight) or within the cooldown, else pays
 * pointsPerShare through earn() (source `share`, multipliers apply) and records the share.
 */
export function recordShare(db: Db, projectId: string, externalId: string, input: ShareInput, actor: string, now: Date) {
  return atomically(db, () => {
    const member = requireMember(db, projectId, externalId);
    const state = shareState(db, member, now);
    const { platforms, pointsPerShare, maxSharesPerDay, cooldownMinutes } = state.settings;
    const platform = platformName(input.platform);
    if (!platforms.includes(platform)) throw badRequest(`"platform" must be one this project offers: ${platforms.join(', ')}.`);
    if (state.todayShares >= maxSharesPerDay) {
      throw tooSoon(`The member "${externalId}" has shared ${state.todayShares} times today, the daily limit (maxSharesPerDay ${maxSharesPerDay}).`,
        now, nextLocalMidnight(now, state.timeZone));
    }
    if (state.cooldownEndsAt !== null) throw tooSoon(`Sharing has a ${cooldownMinutes} min cooldown.`, now, state.cooldownEndsAt);
    const shareId = newId('shr');
    const earned = earn(db, member, {
      basePoints: pointsPerShare, source: 'share', actor, description: `Shared on ${platform}`, referenceId: shareId,
      metadata: { platform, ...(input.shareType === undefined ? {} : { shareType: input.shareType }) },
    }, now);
    stmt(db, `INSERT INTO social_shares (public_id, project_id, member_id, platform, share_type, local_day, points_awarded, shared_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(shareId, projectId, member.id, platform, input.shareType ?? null, state.today, earned.pointsAwarded, now.toISOString());
    return {
      success: true,
      pointsAwarded: earned.pointsAwarded,
      basePoints: earned.basePoints,
      multiplier: earned.multiplier,
      cooldownEndsAt: cooldownMinutes > 0 ? new Date(now.getTime() + cooldownMinutes * 60_000).toISOString() : null,
      todayShares: state.todayShares + 1,
      member: { points: memberById(db, member.id).points },
    };
  });
}
