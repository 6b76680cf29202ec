import type { Db } from '../../db/connection.ts';
import { DAY_MS } from '../../shared/clock.ts';
import { badRequest } from '../../shared/errors.ts';
import { datesBetween, daysFrom, heldBefore, netChange } from './overview.ts';

/**
 * The points-accounting table a finance team reconciles the programme's liability with, per day
 * in the project's time zone: what members held at the start of the day, what moved in each of
 * the five flows (docs/admin.md defines them from the ledger's types), and what they held at its
 * end. A day's end is the next day's start, and every day balances:
 * end = start + earned − earnedReversed − redeemed + redeemedReimbursed − expired.
 */

export interface PointsReportDay {
  date: string;
  outstandingStart: number;
  earned: number;
  earnedReversed: number;
  redeemed: number;
  redeemedReimbursed: number;
  expired: number;
  outstandingEnd: number;
}

/** The table's columns in order: its CSV (the CLI's, the admin's download) has them as its header. */
export const POINTS_REPORT_COLUMNS: readonly (keyof PointsReportDay)[] = ['date', 'outstandingStart', 'earned', 'earnedReversed', 'redeemed',
  'redeemedReimbursed', 'expired', 'outstandingEnd'];

/** The longest report: ten years of days. */
export const MAX_REPORT_DAYS = 3660;

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const isDate = (text: string) => DATE.test(text) && new Date(`${text}T00:00:00Z`).toISOString().slice(0, 10) === text;

export function pointsReport(db: Db, projectId: string, from: string, to: string): { days: PointsReportDay[] } {
  for (const [name, value] of [['from', from], ['to', to]]) {
    if (!isDate(value!)) throw badRequest(`"${name}" must be a date such as 2026-11-30 (YYYY-MM-DD), not "${value}".`);
  }
  if (from > to) throw badRequest(`"from" (${from}) must not be after "to" (${to}).`);
  const span = (Date.parse(to) - Date.parse(from)) / DAY_MS + 1;
  if (span > MAX_REPORT_DAYS) throw badRequest(`A report covers at most ${MAX_REPORT_DAYS} days; ${from} to ${to} is ${span}.`);
  const dates = datesBetween(from, to);
  const byDay = new Map(daysFrom(db, projectId, from).filter((row) => row.day <= to).map((row) => [row.day, row]));
  let held = heldBefore(db, projectId, from).points;
  return {
    days: dates.map((date): PointsReportDay => {
      const row = byDay.get(date);
      const start = held;
      if (row) held += netChange(row);
      return {
        date, outstandingStart: start, earned: row?.earned ?? 0, earnedReversed: row?.earned_reversed ?? 0, redeemed: row?.redeemed ?? 0,
        redeemedReimbursed: row?.redeemed_reimbursed ?? 0, expired: row?.expired ?? 0, outstandingEnd: held,
      };
    }),
  };
}
