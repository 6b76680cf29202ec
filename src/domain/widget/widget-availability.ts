import type { Db } from '../../db/connection.ts';
import { nextLocalMidnight, projectTimeZone } from '../project/calendar.ts';
import { requireGame, playLimit } from '../games/play.ts';
import { requireMember } from '../members/members.ts';
import type { EarningSource } from '../catalog/multiplier-kind.ts';
import { activeMultipliers } from '../multipliers/earn.ts';
import type { ShareStatus } from '../share/share.ts';

/**
 * Why an action is closed for the member now and when it opens again, so the widget can say so
 * beside the disabled button: `reason` null = open; `availableAt` null = it never opens again.
 */
export interface Availability {
  reason: 'max' | 'daily' | 'cooldown' | null;
  availableAt: string | null;
}

const OPEN: Availability = { reason: null, availableAt: null };

/** The multiplier that applies to `source` now (1 without a running event): base × multiplier = points. */
export const multiplierNow = (db: Db, projectId: string, now: Date, source: EarningSource) =>
  activeMultipliers(db, projectId, now, source)[0]?.multiplier ?? 1;

export function gameAvailability(db: Db, projectId: string, gameId: string, externalId: string, now: Date): Availability {
  const limit = playLimit(db, requireGame(db, projectId, gameId), requireMember(db, projectId, externalId), now);
  return limit ? { reason: limit.reason, availableAt: limit.until?.toISOString() ?? null } : OPEN;
}

/** A check-in opens again at the next local midnight of the project's time zone. */
export function checkinAvailability(db: Db, projectId: string, canCheckin: boolean, now: Date): Availability {
  return canCheckin ? OPEN : { reason: 'daily', availableAt: nextLocalMidnight(now, projectTimeZone(db, projectId)).toISOString() };
}

/** The daily limit wins over the cooldown: it opens later. */
export function shareAvailability(db: Db, projectId: string, status: ShareStatus, now: Date): Availability {
  if (status.todayShares >= status.maxSharesPerDay) return { reason: 'daily', availableAt: nextLocalMidnight(now, projectTimeZone(db, projectId)).toISOString() };
  return status.cooldownEndsAt ? { reason: 'cooldown', availableAt: status.cooldownEndsAt } : OPEN;
}
