import { DAY_MS } from './clock.ts';

/**
 * Calendar dates in a time zone, with nothing of ours beyond the clock: the domain counts days in
 * a project's zone (src/domain/project/calendar.ts), and the database computes the same dates in
 * SQL through `local_day()` (src/db/connection.ts), so a figure recounted from the ledger falls on
 * the day the posting counted it on.
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

const HOUR_MS = 3_600_000;

/** Per time zone and UTC hour: its local date, or the two dates either side of the local midnight inside it. */
const hourDates = new Map<string, Map<number, { date: string; midnight?: number; after?: string }>>();

/**
 * The local date of `at`, for instants in any order. SQL asks for the dates of rows in whatever
 * order it sorted them (a member's rows, years apart), where localDate()'s one remembered day
 * misses every time and each miss costs Intl formatting: 20 s over 1,000,000 rows against under 1.
 * So each UTC hour's date is kept once computed, with the local midnight when one falls inside it.
 */
function dateInHour(at: Date, timeZone: string): string {
  let hours = hourDates.get(timeZone);
  if (!hours || hours.size > 200_000) {
    hours = new Map();
    hourDates.set(timeZone, hours);
  }
  const hour = Math.floor(at.getTime() / HOUR_MS);
  let known = hours.get(hour);
  if (!known) {
    const start = new Date(hour * HOUR_MS);
    const midnight = nextLocalMidnight(start, timeZone).getTime();
    known = { date: formatDate(start, timeZone) };
    if (midnight < (hour + 1) * HOUR_MS) Object.assign(known, { midnight, after: formatDate(new Date(midnight), timeZone) });
    hours.set(hour, known);
  }
  return known.midnight !== undefined && at.getTime() >= known.midnight ? known.after! : known.date;
}

/**
 * `local_day(instant, timeZone)` in SQL: the local date of an ISO 8601 instant as the ledger
 * stores them (`created_at`), or NULL for NULL or a text that is not one.
 */
export function localDay(instant: unknown, timeZone: unknown): string | null {
  if (typeof instant !== 'string' || typeof timeZone !== 'string') return null;
  const at = new Date(instant);
  return Number.isNaN(at.getTime()) ? null : dateInHour(at, timeZone);
}
