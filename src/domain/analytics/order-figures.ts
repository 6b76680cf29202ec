import { createHash } from 'node:crypto';
import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { localDate } from '../../shared/local-dates.ts';
import { projectTimeZone } from '../project/calendar.ts';
import { addToOrders, type Segment } from './figures.ts';

/**
 * Store orders in the daily figures (docs/admin.md, What the Overview counts): every order a
 * connected store reports is recorded with its total, member or not, and counts while it is paid
 * (processing or completed) for its total less its refunds, on the day it was first received.
 * Shoppers are told apart to count repeat purchases: a member by their row, a guest by a hash of
 * their billing email (the email itself is not kept); a guest without an email is not counted as
 * a shopper.
 */

const PAID = new Set(['processing', 'completed']);

/** What an order counts for in the figures now: its total less its refunds while paid, else null (it does not count). */
export const orderRevenue = (status: string, totalCents: number, refundedCents: number): number | null =>
  (PAID.has(status) ? Math.max(totalCents - refundedCents, 0) : null);

/** The shopper an order is counted for (commerce_orders.shopper). */
export function shopperOf(projectId: string, memberId: number | null, email: string | null): string | null {
  if (memberId !== null) return `m${memberId}`;
  if (email === null) return null;
  return `g${createHash('sha256').update(`${projectId}:${email}`).digest('hex').slice(0, 32)}`;
}

const segmentOf = (shopper: string): Segment => (shopper.startsWith('m') ? 'member' : 'guest');

/** The days of the shopper's latest two counted orders, latest first. */
function latestTwo(db: Db, timeZone: string, shopper: string): (string | undefined)[] {
  const times = stmt<string>(db, `SELECT created_at FROM commerce_orders WHERE shopper = ? AND revenue_cents IS NOT NULL
    ORDER BY created_at DESC, id DESC LIMIT 2`).pluck().all(shopper);
  return [0, 1].map((i) => (times[i] === undefined ? undefined : localDate(new Date(times[i]), timeZone)));
}

export interface OrderChange {
  projectId: string;
  /** When the order was first received: the day it counts on. */
  receivedAt: string;
  memberId: number | null;
  shopper: string | null;
  /** What it counted for before this delivery, and counts for after it (null: nothing). */
  before: number | null;
  after: number | null;
}

/**
 * Records an order's new state (`UPDATE commerce_orders … revenue_cents`, run by `write`) and
 * moves the figures by the difference, in the delivery's transaction. When the order starts or
 * stops counting, its shopper's latest two orders may change: their days are read before and
 * after the write.
 */
export function countOrder(db: Db, change: OrderChange, write: () => void): void {
  const { projectId, before, after, shopper } = change;
  const timeZone = projectTimeZone(db, projectId);
  const moves = (before === null) !== (after === null) && shopper !== null;
  const previous = moves ? latestTwo(db, timeZone, shopper) : [];
  write();
  if (before === after) return;
  const day = localDate(new Date(change.receivedAt), timeZone);
  const segment: Segment = change.memberId === null ? 'guest' : 'member';
  addToOrders(db, projectId, day, segment, 'orders', (after === null ? 0 : 1) - (before === null ? 0 : 1));
  addToOrders(db, projectId, day, segment, 'revenue_cents', (after ?? 0) - (before ?? 0));
  if (!moves) return;
  const next = latestTwo(db, timeZone, shopper);
  const columns = ['shoppers_latest', 'shoppers_second'] as const;
  for (const [i, column] of columns.entries()) {
    if (previous[i] === next[i]) continue;
    if (previous[i] !== undefined) addToOrders(db, projectId, previous[i], segmentOf(shopper), column, -1);
    if (next[i] !== undefined) addToOrders(db, projectId, next[i], segmentOf(shopper), column, 1);
  }
}
