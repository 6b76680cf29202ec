import * as v from 'valibot';
import { int, nullable, num, str } from './common.ts';

// The admin's analytics answers (GET /api/admin/projects/:id/overview and /points-report), made
// by src/domain/analytics/; docs/admin.md says what each figure counts.

const date = v.pipe(v.string(), v.isoDate());
const count = v.pipe(int, v.minValue(0));
/**
 * Points held at the end of a day, summed by the days the ledger dates its entries: never below
 * zero while the clock only moves forward; a clock set back across midnight can date a spend
 * before the award it spent, and that earlier day's sum then is below zero.
 */
const held = int;
const ratio = nullable(v.pipe(num, v.minValue(0)));
const money = v.object({ amount: num, currency: str });

export const overviewAnswer = v.pipe(v.object({
  range: v.picklist([7, 30, 90, 365]),
  from: date,
  to: date,
  timezone: str,
  totals: v.object({
    members: count,
    activeMembers: count,
    newMembers: count,
    pointsIssued: count,
    pointsRedeemed: count,
    pointsExpired: count,
    /** Redeemed ÷ issued over the range; above 1 when members spent more than the range issued. */
    redemptionRate: ratio,
    outstanding: count,
    outstandingValue: nullable(money),
  }),
  days: v.array(v.object({ date, newMembers: count, activeMembers: count, issued: count, redeemed: count, expired: count, outstanding: held })),
  topRewards: v.array(v.object({ id: str, name: str, claims: count, points: count })),
  topQuests: v.array(v.object({ id: str, name: str, completions: count, points: count })),
  earningSources: v.array(v.object({ source: str, points: count, count })),
  commerce: nullable(v.object({
    memberRevenue: num, nonMemberRevenue: num, memberOrders: count, nonMemberOrders: count, memberRepeatRate: ratio, nonMemberRepeatRate: ratio,
    currency: nullable(str),
  })),
}), v.title('Overview'));

export const pointsReportDay = v.object({
  date, outstandingStart: held, earned: count, earnedReversed: count, redeemed: count, redeemedReimbursed: count, expired: count, outstandingEnd: held,
});

export const pointsReportAnswer = v.pipe(v.object({ days: v.array(pointsReportDay) }), v.title('PointsReport'));
