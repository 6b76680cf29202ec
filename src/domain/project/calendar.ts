import type { Db } from '../../db/connection.ts';
import { DAY_MS } from '../../shared/clock.ts';
import { AppError } from '../../shared/errors.ts';
import { projectContext } from './project-context.ts';

/**
 * Calendar days, weeks and months in a project's time zone: daily play limits, check-in streaks,
 * daily share limits and leaderboard periods all count local days, so a member in Tokyo gets a new
 * day at midnight in Tokyo, not in London.
 */

const dayFormats = new Map<string, Intl.DateTimeFormat>();
const wallFormats = new Map<string, Intl.DateTimeFormat>();

function cached(cache: Map<string, Intl.DateTimeFormat>, timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  let format = cache.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-CA', { timeZone, ...options });
    cache.set(timeZone, format);
  }
  return format;
}

export const projectTimeZone = (db: Db, projectId: string): string => projectContext(db, projectId).timeZone;

/**
 * UTC, every project's default, needs no Intl: the process's first Intl formatter with a time zone
 * loads ICU's zone data, about 30 ms on the event loop that the first award after a start waited.
 */
const formatDate = (at: Date, timeZone: string): string => (timeZone === 'UTC'
  ? at.toISOString().slice(0, 10)
  : cached(dayFormats, timeZone, { year: 'numeric', month: '2-digit', day: '2-digit' }).format(at));

/**
 * The last date computed per time zone, valid from the instant it was computed for until the next
 * local midnight. Every award asks for today's date (leaderboard periods), and Intl formatting
 * costs more than the rest of that work; this makes it a comparison of two numbers.
 */
const recentDates = new Map<string, { from: number; until: number; date: string }>();

/** The local calendar date (YYYY-MM-DD) of `at` in `timeZone`. */
export function localDate(at: Date, timeZone: string): string {
  const time = at.getTime();
  const recent = recentDates.get(timeZone);
  if (recent && time >= recent.from && time < recent.until) return recent.date;
  const date = formatDate(at, timeZone);
  recentDates.set(timeZone, { from: time, until: nextLocalMidnight(at, timeZone).getTime(), date });
  return date;
}

/** The date `days` after (or before) a YYYY-MM-DD date. */
export const shiftDate = (date: string, days: number): string =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);

/** The Monday (YYYY-MM-DD) of the week holding `date`: weeks run Monday to Sunday (ISO 8601). */
export function weekStart(date: string): string {
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay();
  return shiftDate(date, -((weekday + 6) % 7));
}

/** How far `timeZone`'s wall clock is ahead of UTC at `at`, in ms. */
function offsetMs(at: Date, timeZone: string): number {
  if (timeZone === 'UTC') return 0;
  const parts = cached(wallFormats, timeZone, {
    year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23',
  }).formatToParts(at);
  const get = (type: string) => Number(parts.find((part) => part.type === type)!.value);
  const wall = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
  return wall - Math.floor(at.getTime() / 1000) * 1000;
}

/**
 * The instant a wall-clock time (`YYYY-MM-DDTHH:MM:SS`) is in `timeZone`: `2024-05-01T00:00:00` is
 * midnight there. A time a daylight-saving change skips is read with the offset from before it.
 */
export function wallClockInstant(wall: string, timeZone: string): Date {
  const asUtc = Date.parse(`${wall}Z`);
  const guess = asUtc - offsetMs(new Date(asUtc), timeZone);
  return new Date(asUtc - offsetMs(new Date(guess), timeZone));
}

/** The instant the local date after `at`'s begins in `timeZone` (the next local midnight). */
export function nextLocalMidnight(at: Date, timeZone: string): Date {
  const midnightAsUtc = Date.parse(`${shiftDate(formatDate(at, timeZone), 1)}T00:00:00Z`);
  const guess = midnightAsUtc - offsetMs(at, timeZone);
  // A daylight-saving change between now and midnight moves the offset: correct once with it.
  return new Date(midnightAsUtc - offsetMs(new Date(guess), timeZone));
}

/** Whole seconds from `now` until `until`, at least 1: the value of a Retry-After header. */
export const secondsUntil = (now: Date, until: Date): number => Math.max(1, Math.ceil((until.getTime() - now.getTime()) / 1000));

/** 429 with Retry-After: a play, check-in or share limit that frees up at `until`. */
export function tooSoon(message: string, now: Date, until: Date): AppError {
  const seconds = secondsUntil(now, until);
  return new AppError(429, 'Too Many Requests', `${message} Try again in ${seconds} s (at ${until.toISOString()}).`, { 'retry-after': String(seconds) });
}
