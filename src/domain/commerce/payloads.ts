import * as v from 'valibot';
import { isMoney, toCents } from './points-math.ts';

// What Punchcard reads of WooCommerce's REST v3 payloads. Objects are loose: WooCommerce sends many
// more fields (and plugins add their own), which are ignored. Money arrives as decimal strings.

const wooId = v.pipe(v.number('must be a number'), v.integer('must be a whole number'), v.minValue(0, 'must be at least 0'), v.maxValue(Number.MAX_SAFE_INTEGER));
const money = v.pipe(v.string('must be a decimal string'), v.check(isMoney, 'must be an amount such as "12.34"'), v.transform(toCents));
const optionalMoney = v.optional(money, '0');
const shortText = v.pipe(v.string(), v.maxLength(1000));
const optionalText = v.optional(v.nullable(shortText), null);

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
  number: v.optional(v.union([shortText, wooId]), ''),
  status: v.pipe(v.string('must be a string'), v.maxLength(64)),
  customer_id: v.optional(wooId, 0),
  date_modified_gmt: optionalText,
  date_modified: optionalText,
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
