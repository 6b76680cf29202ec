import type { Db } from '../../db/connection.ts';
import { shiftDate } from '../../shared/local-dates.ts';
import { AppError } from '../../shared/errors.ts';
import { projectContext } from './project-context.ts';

/**
 * Calendar days, weeks and months in a project's time zone: daily play limits, check-in streaks,
 * daily share limits and leaderboard periods all count local days, so a member in Tokyo gets a new
 * day at midnight in Tokyo, not in London.
 * The dates themselves are computed in src/shared/local-dates.ts, which SQL's local_day() shares.
 */
export { localDate, nextLocalMidnight, shiftDate, wallClockInstant } from '../../shared/local-dates.ts';

export const projectTimeZone = (db: Db, projectId: string): string => projectContext(db, projectId).timeZone;

/** The Monday (YYYY-MM-DD) of the week holding `date`: weeks run Monday to Sunday (ISO 8601). */
export function weekStart(date: string): string {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return shiftDate(date, -((weekday + 6) % 7));
}

/** Whole seconds from `now` until `until`, at least 1: the value of a Retry-After header. */
export const secondsUntil = (now: Date, until: Date): number => Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));

/** 429 with Retry-After: a play, check-in or share limit that frees up at `until`. */
export function tooSoon(message: string, now: Date, until: Date): AppError {
  const seconds = secondsUntil(now, until);
  return new AppError(429, 'Too Many Requests', `${message} Try again in ${seconds} s (at ${until.toISOString()}).`, { 'retry-after': String(seconds) });
}
