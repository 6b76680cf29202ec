import * as v from 'valibot';
import { identifier, text } from '../../shared/value-schemas.ts';
import { isMoney, toCents } from './points-math.ts';

// What Punchcard reads of WooCommerce's REST v3 payloads. Objects are loose: WooCommerce sends many
// more fields (and plugins add their own), which are ignored. Money arrives as decimal strings.
// What Punchcard keeps or shows is checked as the API checks a client's text (order numbers,
// statuses and dates: refused with a 400 naming the field); a customer's email and name, typed by
// shoppers, are cleaned instead (customers.ts), so an odd one never costs an order its points.

const wooId = v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(0, 'must be at least 0'), v.maxValue(Number.MAX_SAFE_INTEGER));
const money = v.pipe(v.string('must be a decimal string'), v.check(isMoney, 'must be an amount such as "12.34"'), v.transform(toCents));
const optionalMoney = v.optional(money, '0');
const shortText = v.pipe(v.string(), v.maxLength(1000));
/** Typed by shoppers, cleaned before it is kept (customers.ts). */
const optionalText = v.optional(v.nullable(shortText), null);
const optionalDate = v.optional(v.nullable(text(64)), null);
/** A status is a slug (`completed`, a plugin's `shipped`): it goes into the ledger's descriptions. */
const status = v.pipe(v.string('must be a string'), v.regex(/^[a-z0-9_-]{1,64}$/i, 'must be a status slug: 1 to 64 letters, digits, "_" or "-"'));

const lineItem = v.object({
  product_id: v.optional(wooId, 0),
  variation_id: v.optional(wooId, 0),
  total: optionalMoney,
  total_tax: optionalMoney,
});

const refund = v.object({
  id: wooId,
  // WooCommerce lists an order's refunds with negative totals ("-10.00").
  total: money,
});

export const orderPayload = v.object({
  id: v.pipe(wooId, v.minValue(1, 'must be at least 1')),
  number: v.optional(v.union([v.literal(''), identifier(100), wooId], 'must be printable text of at most 100 characters or a number'), ''),
  status,
  customer_id: v.optional(wooId, 0),
  date_modified_gmt: optionalDate,
  date_modified: optionalDate,
  total: money,
  currency: optionalText,
  shipping_total: optionalMoney,
  shipping_tax: optionalMoney,
  total_tax: optionalMoney,
  billing: v.optional(v.object({ email: optionalText, first_name: optionalText, last_name: optionalText }), {}),
  line_items: v.optional(v.array(lineItem), []),
  refunds: v.optional(v.array(refund), []),
});

export type OrderPayload = v.InferOutput<typeof orderPayload>;

export const customerPayload = v.object({
  id: v.pipe(wooId, v.minValue(1, 'must be at least 1')),
  email: optionalText,
  first_name: optionalText,
  last_name: optionalText,
});

export type CustomerPayload = v.InferOutput<typeof customerPayload>;
