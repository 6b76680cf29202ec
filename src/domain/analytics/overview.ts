import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { shiftDate } from '../../shared/local-dates.ts';
import { getItem } from '../catalog/catalog-items.ts';
import { quests } from '../catalog/quest-kind.ts';
import { rewards } from '../catalog/reward-kind.ts';
import { liveStore } from '../commerce/stores.ts';
import { localDate, projectTimeZone } from '../project/calendar.ts';
import { getSettings } from '../project/settings.ts';
import type { ItemKind } from './figures.ts';
import { pointsValue, type Money } from './money.ts';

/**
 * The admin's Overview: the programme's figures over the last 7, 30, 90 or 365 days ending today
 * in the project's time zone, read from the daily figures (a few hundred rows a year), never from
 * the ledger. docs/admin.md says what each figure counts.
 */

export const OVERVIEW_RANGES = [7, 30, 90, 365] as const;
export type OverviewRange = (typeof OVERVIEW_RANGES)[number];

export interface OverviewDay {
  date: string;
  newMembers: number;
  activeMembers: number;
  issued: number;
  redeemed: number;
  expired: number;
  /** Points members held at the end of the day. */
  outstanding: number;
}

export interface CommerceFigures {
  memberRevenue: number;
  nonMemberRevenue: number;
  memberOrders: number;
  nonMemberOrders: number;
  memberRepeatRate: number | null;
  nonMemberRepeatRate: number | null;
  currency: string | null;
}

export interface Overview {
  range: OverviewRange;
  from: string;
  to: string;
  timezone: string;
  totals: {
    members: number;
    activeMembers: number;
    newMembers: number;
    pointsIssued: number;
    pointsRedeemed: number;
    pointsExpired: number;
    redemptionRate: number | null;
    outstanding: number;
    outstandingValue: Money | null;
  };
  days: OverviewDay[];
  topRewards: { id: string; name: string; claims: number; points: number }[];
  topQuests: { id: string; name: string; completions: number; points: number }[];
  earningSources: { source: string; points: number; count: number }[];
  commerce: CommerceFigures | null;
}

interface DayRow {
  day: string;
  new_members: number;
  erased_members: number;
  active_members: number;
  last_active: number;
  earned: number;
  earned_reversed: number;
  redeemed: number;
  redeemed_reimbursed: number;
  expired: number;
}

/** A day's change in the points members hold: its five flows. */
export const netChange = (row: Pick<DayRow, 'earned' | 'earned_reversed' | 'redeemed' | 'redeemed_reimbursed' | 'expired'>) =>
  row.earned - row.earned_reversed - row.redeemed + row.redeemed_reimbursed - row.expired;

/** Members and points held at the start of `day`: every day before it, summed. */
export function heldBefore(db: Db, projectId: string, day: string): { members: number; points: number } {
  return stmt<{ members: number; points: number }>(db, `SELECT coalesce(sum(new_members - erased_members), 0) AS members,
    coalesce(sum(earned - earned_reversed - redeemed + redeemed_reimbursed - expired), 0) AS points
    FROM daily_figures WHERE project_id = ? AND day < ? AND kind = 'day'`).get(projectId, day)!;
}

/** The project's day rows from `from` on (later days than today too, should the clock have run ahead). */
export const daysFrom = (db: Db, projectId: string, from: string): DayRow[] =>
  stmt<DayRow>(db, `SELECT day, new_members, erased_members, active_members, last_active, earned, earned_reversed, redeemed, redeemed_reimbursed,
    expired FROM daily_figures WHERE project_id = ? AND day >= ? AND kind = 'day' ORDER BY day`).all(projectId, from);

/** The dates from `from` to `to`, both included. */
export function datesBetween(from: string, to: string): string[] {
  const dates: string[] = [];
  for (let date = from; date <= to; date = shiftDate(date, 1)) dates.push(date);
  return dates;
}

const sum = <T>(rows: T[], value: (row: T) => number) => rows.reduce((total, row) => total + value(row), 0);
const ratio = (part: number, whole: number) => (whole === 0 ? null : part / whole);

interface ItemTotal {
  item: string;
  count: number;
  points: number;
}

/**
 * Every top-list item's totals over the range, in one pass over its days' rows: rewards and quests
 * by count, earning sources by points (then the other, then the id).
 */
function itemTotals(db: Db, projectId: string, from: string, to: string): Record<ItemKind, ItemTotal[]> {
  const rows = stmt<ItemTotal & { kind: ItemKind }>(db, `SELECT kind, item, sum(count) AS count, sum(points) AS points FROM daily_figures
    WHERE project_id = ? AND day BETWEEN ? AND ? AND kind <> 'day' GROUP BY kind, item`).all(projectId, from, to);
  const of = (kind: ItemKind) => rows.filter((row) => row.kind === kind)
    .map(({ item, count, points }) => ({ item, count, points }))
    .sort((a, b) => (kind === 'source' ? b.points - a.points || b.count - a.count : b.count - a.count || b.points - a.points) || (a.item < b.item ? -1 : 1));
  return { source: of('source'), reward: of('reward'), quest: of('quest') };
}

function commerceFigures(db: Db, projectId: string, from: string, to: string): CommerceFigures | null {
  const store = liveStore(db, projectId);
  if (!store) return null;
  const rows = stmt<{ segment: string; orders: number; revenue: number; shoppers: number; repeat: number }>(db, `SELECT segment,
    sum(iif(day <= @to, orders, 0)) AS orders, sum(iif(day <= @to, revenue_cents, 0)) AS revenue, sum(shoppers_latest) AS shoppers,
    sum(shoppers_second) AS repeat FROM daily_order_figures WHERE project_id = @projectId AND day >= @from GROUP BY segment`).all({ projectId, from, to });
  const of = (segment: string) => rows.find((row) => row.segment === segment) ?? { orders: 0, revenue: 0, shoppers: 0, repeat: 0 };
  const members = of('member');
  const guests = of('guest');
  const currency = stmt<string>(db, `SELECT currency FROM commerce_orders WHERE store_id = ? AND currency IS NOT NULL
    ORDER BY order_id DESC LIMIT 1`).pluck().get(store.id) ?? null;
  return {
    memberRevenue: members.revenue / 100,
    nonMemberRevenue: guests.revenue / 100,
    memberOrders: members.orders,
    nonMemberOrders: guests.orders,
    memberRepeatRate: ratio(members.repeat, members.shoppers),
    nonMemberRepeatRate: ratio(guests.repeat, guests.shoppers),
    currency,
  };
}

/** GET /api/admin/projects/:id/overview?range=: run it in one read snapshot (a dozen statements). */
export function overview(db: Db, projectId: string, range: OverviewRange, now: Date): Overview {
  const timezone = projectTimeZone(db, projectId);
  const to = localDate(now, timezone);
  const from = shiftDate(to, -(range - 1));
  const start = heldBefore(db, projectId, from);
  const rows = daysFrom(db, projectId, from);
  const inRange = rows.filter((row) => row.day <= to);
  const byDay = new Map(inRange.map((row) => [row.day, row]));
  let held = start.points;
  const days = datesBetween(from, to).map((date): OverviewDay => {
    const row = byDay.get(date);
    if (row) held += netChange(row);
    return {
      date, newMembers: row?.new_members ?? 0, activeMembers: row?.active_members ?? 0, issued: row?.earned ?? 0, redeemed: row?.redeemed ?? 0,
      expired: row?.expired ?? 0, outstanding: held,
    };
  });
  const outstanding = start.points + sum(rows, netChange);
  const issued = sum(inRange, (row) => row.earned);
  const redeemed = sum(inRange, (row) => row.redeemed);
  const { valuePerPoint } = getSettings(db, projectId);
  const items = itemTotals(db, projectId, from, to);
  return {
    range, from, to, timezone,
    totals: {
      members: start.members + sum(rows, (row) => row.new_members - row.erased_members),
      // Members whose latest day of activity is in the range: the days from `from` on.
      activeMembers: sum(rows, (row) => row.last_active),
      newMembers: sum(inRange, (row) => row.new_members),
      pointsIssued: issued,
      pointsRedeemed: redeemed,
      pointsExpired: sum(inRange, (row) => row.expired),
      redemptionRate: ratio(redeemed, issued),
      outstanding,
      outstandingValue: valuePerPoint && pointsValue(outstanding, valuePerPoint),
    },
    days,
    topRewards: items.reward.slice(0, 5)
      .map(({ item, count, points }) => ({ id: item, name: getItem(db, rewards, projectId, item).name, claims: count, points })),
    topQuests: items.quest.slice(0, 5)
      .map(({ item, count, points }) => ({ id: item, name: getItem(db, quests, projectId, item).name, completions: count, points })),
    earningSources: items.source.map(({ item, count, points }) => ({ source: item, points, count })),
    commerce: commerceFigures(db, projectId, from, to),
  };
}
