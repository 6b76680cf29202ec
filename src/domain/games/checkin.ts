import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { evaluateBadgeCriteria } from '../badges/member-badges.ts';
import { localDate, nextLocalMidnight, projectTimeZone, shiftDate, tooSoon } from '../project/calendar.ts';
import type { Game } from '../catalog/game-kind.ts';
import { assertPlayable, requireGame } from './play.ts';
import { newId } from '../../shared/ids.ts';
import { memberById, requireMember, type MemberRow } from '../members/members.ts';
import { earn } from '../multipliers/earn.ts';

/**
 * Daily check-in. Days are calendar days in the project's time zone. Checking in on the day after
 * the last check-in continues the streak; any later day starts it again at 1; a second check-in
 * on the same day answers 429 until the next local midnight. The streak belongs to the member
 * (members.current_streak), whichever check-in game they use.
 */

interface StreakDay {
  timeZone: string;
  today: string;
  checkedInToday: boolean;
  /** The streak that still counts now: 0 once a day was missed. */
  currentStreak: number;
  /** The streak day today's check-in makes, or made. */
  todayStreak: number;
}

function streakDay(db: Db, member: MemberRow, now: Date): StreakDay {
  const timeZone = projectTimeZone(db, member.project_id);
  const today = localDate(now, timeZone);
  const last = member.last_checkin_at === null ? null : localDate(new Date(member.last_checkin_at), timeZone);
  const checkedInToday = last === today;
  const continues = last === shiftDate(today, -1);
  const currentStreak = checkedInToday || continues ? member.current_streak : 0;
  return { timeZone, today, checkedInToday, currentStreak, todayStreak: checkedInToday ? currentStreak : currentStreak + 1 };
}

const bonusOn = (game: Game, day: number) => game.streakBonuses.find((bonus) => bonus.day === day)?.bonus ?? null;

export interface CheckinStatus {
  canCheckin: boolean;
  currentStreak: number;
  longestStreak: number;
  lastCheckinAt: string | null;
  /** The base points a check-in pays (before any multiplier event). */
  todayReward: number;
  /** The bonus of the streak day today's check-in makes (or made); null when that day has none. */
  streakBonus: number | null;
  /** The next bonus after today's streak day, if the member keeps checking in every day. */
  nextStreakBonus: { day: number; bonus: number; daysAway: number } | null;
}

/** GET /games/{id}/checkin: what a check-in would do now. */
export function checkinStatus(db: Db, projectId: string, gameId: string, externalId: string, now: Date): CheckinStatus {
  const game = requireGame(db, projectId, gameId);
  const member = requireMember(db, projectId, externalId);
  assertPlayable(game, true);
  const day = streakDay(db, member, now);
  const next = game.streakBonuses.filter((bonus) => bonus.day > day.todayStreak).sort((a, b) => a.day - b.day)[0];
  return {
    canCheckin: !day.checkedInToday,
    currentStreak: day.currentStreak,
    longestStreak: member.longest_streak,
    lastCheckinAt: member.last_checkin_at,
    todayReward: game.checkinPoints,
    streakBonus: bonusOn(game, day.todayStreak),
    nextStreakBonus: next ? { day: next.day, bonus: next.bonus, daysAway: next.day - day.todayStreak } : null,
  };
}

export interface CheckinResult {
  success: true;
  /** Everything this check-in paid: the check-in points plus the streak bonus, multipliers applied. */
  pointsAwarded: number;
  /** The part of pointsAwarded that is the streak bonus; null when today's streak day has none. */
  streakBonus: number | null;
  newStreak: number;
  /** Before the multiplier: the check-in points plus the streak bonus. */
  basePoints: number;
  multiplier: number;
  multiplierEventName: string | null;
  member: { points: number; currentStreak: number; longestStreak: number };
}

/**
 * POST /games/{id}/checkin, in one transaction: moves the streak, pays checkinPoints through
 * earn() (source `checkin`) and, on a bonus day, the bonus as a second transaction (source
 * `checkin`, its own description), so the history says what the bonus was. Multiplier events for
 * `checkin` apply to both. Badges with a currentStreak criterion are evaluated.
 */
export function performCheckin(db: Db, projectId: string, gameId: string, externalId: string, actor: string, now: Date): CheckinResult {
  return atomically(db, () => {
    const game = requireGame(db, projectId, gameId);
    const member = requireMember(db, projectId, externalId);
    assertPlayable(game, true);
    const day = streakDay(db, member, now);
    if (day.checkedInToday) {
      throw tooSoon(`The member "${externalId}" has already checked in today (${day.today}, ${day.timeZone}).`, now, nextLocalMidnight(now, day.timeZone));
    }
    const newStreak = day.todayStreak;
    const longest = Math.max(member.longest_streak, newStreak);
    stmt(db, 'UPDATE members SET current_streak = ?, longest_streak = ?, last_checkin_at = ?, updated_at = ? WHERE id = ?')
      .run(newStreak, longest, now.toISOString(), now.toISOString(), member.id);
    evaluateBadgeCriteria(db, memberById(db, member.id), 'currentStreak', now);

    const playId = newId('gpl');
    const reference = { source: 'checkin' as const, actor, referenceId: game.id, metadata: { gameId: game.id, playId, streak: newStreak } };
    const daily = earn(db, memberById(db, member.id), { ...reference, basePoints: game.checkinPoints, description: `Daily check-in (day ${newStreak})` }, now);
    const bonusBase = bonusOn(game, newStreak);
    const bonus = bonusBase === null ? null
      : earn(db, memberById(db, member.id), { ...reference, basePoints: bonusBase, description: `Check-in streak bonus: day ${newStreak}` }, now);
    const pointsAwarded = daily.pointsAwarded + (bonus?.pointsAwarded ?? 0);
    stmt(db, `INSERT INTO game_plays (public_id, project_id, game_id, member_id, local_day, points_spent, points_awarded, streak, streak_bonus,
      played_at) VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)`)
      .run(playId, projectId, game.id, member.id, day.today, pointsAwarded, newStreak, bonus?.pointsAwarded ?? null, now.toISOString());
    const updated = memberById(db, member.id);
    return {
      success: true,
      pointsAwarded,
      streakBonus: bonus?.pointsAwarded ?? null,
      newStreak,
      basePoints: game.checkinPoints + (bonusBase ?? 0),
      multiplier: daily.multiplier,
      multiplierEventName: daily.multiplierEvent?.name ?? null,
      member: { points: updated.points, currentStreak: updated.current_streak, longestStreak: updated.longest_streak },
    };
  });
}
