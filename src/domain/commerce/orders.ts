import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { postToLedger, type TransactionType } from '../ledger/ledger.ts';
import { memberById, type MemberRow } from '../members/members.ts';
import { earn } from '../multipliers/earn.ts';
import { getSettings } from '../project/settings.ts';
import { convertReferral } from '../referrals/referrals.ts';
import { countOrder, orderRevenue, shopperOf } from '../analytics/order-figures.ts';
import { cleanEmail, memberForShopper } from './customers.ts';
import type { OrderPayload } from './payloads.ts';
import { orderPoints, refundedPoints, type OrderFacts } from './points-math.ts';
import type { StoreSettings } from './store-settings.ts';
import type { StoreRow } from './stores.ts';

/** Statuses after which an award is taken back in full. */
const REVOKING = new Set(['cancelled', 'refunded', 'failed']);

interface OrderRow {
  id: number;
  member_id: number | null;
  status: string;
  version: string;
  full_points: number | null;
  awarded: number;
  net_points: number;
  refunded_points: number;
  shortfall: number;
  excluded: string | null;
  shopper: string | null;
  revenue_cents: number | null;
  created_at: string;
}

const ORDER_SELECT = `SELECT id, member_id, status, version, full_points, awarded, net_points, refunded_points, shortfall, excluded,
  shopper, revenue_cents, created_at FROM commerce_orders`;

/** What happened to a delivery, for its answer (WooCommerce logs it). */
export type OrderOutcome = 'stale' | 'excluded' | 'recorded' | 'updated';

export const orderFacts = (order: OrderPayload): OrderFacts => ({
  totalCents: order.total,
  shippingCents: order.shipping_total,
  shippingTaxCents: order.shipping_tax,
  taxCents: order.total_tax,
  lines: order.line_items.map((line) => ({ productId: line.product_id, variationId: line.variation_id, totalCents: line.total, taxCents: line.total_tax })),
});

/** Why an order earns nothing, fixed when it is first seen; null when it earns. */
function exclusion(order: OrderPayload, settings: StoreSettings, member: MemberRow | null): string | null {
  if (order.customer_id === 0 && settings.excludeGuest) return 'guest order';
  if (member === null) return 'guest order without an email';
  if (settings.minOrderAmount !== null && order.total < Math.round(settings.minOrderAmount * 100)) return `total below the minimum order amount ${settings.minOrderAmount}`;
  return null;
}

/** The order's currency as an ISO 4217 code, or null when the store sent none (or something else). */
const currencyOf = (order: OrderPayload) => (order.currency !== null && /^[A-Z]{3}$/.test(order.currency) ? order.currency : null);

/** The order's modification time as WooCommerce sends it; an order without one is always the latest. */
const versionOf = (order: OrderPayload) => order.date_modified_gmt ?? order.date_modified ?? '';

const earnsAt = (status: string, settings: StoreSettings) => status === 'completed' || (settings.pointsOnStatus === 'processing' && status === 'processing');

interface Step {
  db: Db;
  store: StoreRow;
  order: OrderPayload;
  row: OrderRow;
  now: Date;
}

const label = (order: OrderPayload) => `order #${order.number === '' ? order.id : order.number}`;
const orderRef = (order: OrderPayload) => `wc_order_${order.id}`;

/** Takes up to `points` back from the member, never below zero: what the balance cannot cover stays in net_points, owed (the shortfall). */
function takeBack({ db, store, order, row, now }: Step, points: number, type: TransactionType, description: string, metadata: Record<string, unknown>): void {
  if (points <= 0) return;
  const member = memberById(db, row.member_id!);
  const taken = Math.min(points, member.points);
  if (taken > 0) {
    postToLedger(db, member, {
      amount: -taken, type, source: 'order', actor: `store:${store.id}`, description, referenceId: orderRef(order),
      metadata: { storeId: store.id, orderId: order.id, ...metadata, ...(taken < points ? { shortfall: points - taken } : {}) },
    }, now);
  }
  row.net_points -= taken;
}

/** First award (through earn(): the project's multiplier events for `order` apply), or the same points again after a cancellation. */
function award(step: Step, settings: StoreSettings, refundedCents: number): void {
  const { db, store, order, row, now } = step;
  const member = memberById(db, row.member_id!);
  const metadata = { storeId: store.id, orderId: order.id, orderNumber: String(order.number || order.id) };
  if (row.full_points === null) {
    const earned = earn(db, member, {
      basePoints: orderPoints(orderFacts(order), settings), source: 'order', actor: `store:${store.id}`, description: `Points for ${label(order)}`,
      referenceId: orderRef(order), metadata,
    }, now);
    row.full_points = earned.pointsAwarded;
    row.net_points += earned.pointsAwarded;
    row.refunded_points = 0;
    if (getSettings(db, store.project_id).referral.conversion === 'FIRST_ORDER') convertReferral(db, memberById(db, member.id), now);
  } else {
    // Reinstating what the order earned, less its refunds: not a new earning, so no multiplier applies again.
    // The member still holds what the cancellation could not take back (the points were spent):
    // only the rest is paid, else a cancel and complete again would pay in full on every cycle.
    const refunded = refundedPoints(row.full_points, refundedCents, order.total, settings.rounding);
    const points = row.full_points - refunded;
    const held = Math.max(row.net_points, 0);
    const pay = points - held;
    if (pay > 0) {
      postToLedger(db, member, {
        amount: pay, type: 'EARNED', source: 'order', actor: `store:${store.id}`,
        description: `Points for ${label(order)} (${order.status} again${held > 0 ? `, less the ${held} its cancellation could not take back` : ''})`,
        referenceId: orderRef(order), metadata: held > 0 ? { ...metadata, shortfallSettled: held } : metadata,
      }, now);
      row.net_points += pay;
    }
    row.refunded_points = refunded;
  }
  row.awarded = 1;
}

/** Records the refunds not seen before; returns the order's refunded cents in all. */
function recordRefunds({ db, order, row, now }: Step): number {
  const insert = stmt(db, `INSERT INTO commerce_order_refunds (order_row, refund_id, cents, created_at) VALUES (?, ?, ?, ?)
    ON CONFLICT (order_row, refund_id) DO NOTHING`);
  for (const refund of [...order.refunds].sort((a, b) => a.id - b.id)) insert.run(row.id, refund.id, Math.abs(refund.total), now.toISOString());
  return stmt<number>(db, 'SELECT coalesce(sum(cents), 0) FROM commerce_order_refunds WHERE order_row = ?').pluck().get(row.id)!;
}

/**
 * An order.updated delivery. The order's row (store + order id) is the dedupe key: the state a
 * delivery carries is compared with what was applied, so repeats change nothing and an older
 * state arriving late is ignored. The order earns once when it reaches the store's
 * pointsOnStatus; each refund takes back its share once; cancelled, refunded or failed takes back
 * everything it holds (never below zero: the rest is the shortfall); completed again after that
 * earns again, once, less the shortfall still outstanding.
 */
export function applyOrder(db: Db, store: StoreRow, settings: StoreSettings, order: OrderPayload, now: Date): OrderOutcome {
  return atomically(db, () => {
    const version = versionOf(order);
    let row = stmt<OrderRow>(db, `${ORDER_SELECT} WHERE store_id = ? AND order_id = ?`).get(store.id, order.id);
    if (row && version !== '' && version < row.version) return 'stale';
    const isNew = row === undefined;
    const at = now.toISOString();
    if (!row) {
      const shopper = { customerId: order.customer_id, email: order.billing.email, firstName: order.billing.first_name, lastName: order.billing.last_name };
      const member = order.customer_id === 0 && settings.excludeGuest ? null : memberForShopper(db, store, settings, shopper, now);
      const excluded = exclusion(order, settings, member);
      const { lastInsertRowid } = stmt(db, `INSERT INTO commerce_orders (store_id, order_id, member_id, status, version, excluded, created_at, updated_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(store.id, order.id, member?.id ?? null, order.status, version, excluded, at, at);
      row = stmt<OrderRow>(db, `${ORDER_SELECT} WHERE id = ?`).get(lastInsertRowid)!;
    }
    const step: Step = { db, store, order, row, now };
    const refundedCents = recordRefunds(step);
    // An erased member's ledger stays as the erasure left it.
    const erased = row.member_id !== null && memberById(db, row.member_id).erased_at !== null;
    if (row.excluded === null && !erased) {
      if (earnsAt(order.status, settings) && row.awarded === 0) award(step, settings, refundedCents);
      if (REVOKING.has(order.status) && row.awarded === 1) {
        takeBack(step, row.net_points, 'REFUNDED', `${label(order)} ${order.status}`, { status: order.status });
        row.awarded = 0;
      } else if (row.awarded === 1 && row.full_points !== null) {
        const refunded = refundedPoints(row.full_points, refundedCents, order.total, settings.rounding);
        takeBack(step, refunded - row.refunded_points, 'REFUNDED', `Refund on ${label(order)}`, { refundedCents });
        row.refunded_points = Math.max(refunded, row.refunded_points);
      }
    }
    // What the member holds from the order beyond what it is worth now: taken back when it can be, else owed.
    row.shortfall = Math.max(row.net_points - (row.awarded === 1 ? row.full_points! - row.refunded_points : 0), 0);
    // Every order counts in the programme's figures, member or not (src/domain/analytics/order-figures.ts).
    const shopper = row.shopper ?? shopperOf(store.project_id, row.member_id, cleanEmail(order.billing.email));
    const revenue = orderRevenue(order.status, order.total, refundedCents);
    const change = { projectId: store.project_id, receivedAt: row.created_at, memberId: row.member_id, shopper, before: row.revenue_cents, after: revenue };
    const saved = row;
    countOrder(db, change, () => stmt(db, `UPDATE commerce_orders SET status = ?, version = ?, full_points = ?, awarded = ?, net_points = ?,
      refunded_points = ?, shortfall = ?, total_cents = ?, currency = ?, shopper = ?, revenue_cents = ?, updated_at = ? WHERE id = ?`)
      .run(order.status, version === '' ? saved.version : version, saved.full_points, saved.awarded, saved.net_points, saved.refunded_points,
        saved.shortfall, order.total, currencyOf(order), shopper, revenue, at, saved.id));
    if (row.excluded !== null) return 'excluded';
    return isNew ? 'recorded' : 'updated';
  });
}
