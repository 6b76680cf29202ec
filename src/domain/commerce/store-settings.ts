import * as v from 'valibot';
import { enumOf, flag } from '../catalog/item-fields.ts';

/**
 * A number with at most three decimals, kept as an integer of thousandths: points and multipliers
 * are then computed with integers only (a float would make 0.1 × 3 earn 0.30000000000000004).
 */
export const MILLI = 1000;
const thousandths = (value: number) => Math.abs(value * MILLI - Math.round(value * MILLI)) < 1e-6;
const decimal = (min: number, max: number, decimals: string) => v.pipe(
  v.number('must be a number'),
  v.finite('must be a finite number'),
  v.minValue(min, `must be at least ${min}`),
  v.maxValue(max, `must be at most ${max}`),
  v.check(decimals === '3' ? thousandths : (value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6, `must have at most ${decimals} decimals`),
);

/** Product ids are WooCommerce's positive integers, written as object keys. */
const productId = v.pipe(v.string(), v.regex(/^[1-9]\d{0,18}$/, 'must be a WooCommerce product id (a positive whole number)'));

export const ROUNDING_MODES = ['FLOOR', 'ROUND', 'CEIL'] as const;
export type Rounding = (typeof ROUNDING_MODES)[number];

/** Every setting of a connected store, with its default (docs/woocommerce.md lists them). */
export const storeSettingsSchema = v.strictObject({
  /** Points per currency unit of the eligible amount. */
  pointsPerDollar: v.optional(decimal(0, 10_000, '3'), 1),
  rounding: v.optional(enumOf(ROUNDING_MODES), 'FLOOR'),
  /** Orders whose total is below this earn nothing; null: no minimum. */
  minOrderAmount: v.optional(v.nullable(decimal(0, 1_000_000_000, '2')), null),
  excludeShipping: v.optional(flag, true),
  excludeTax: v.optional(flag, true),
  /** Orders without a customer account earn nothing. */
  excludeGuest: v.optional(flag, true),
  /** The status at which an order earns; a completed order earns when this is processing too. */
  pointsOnStatus: v.optional(enumOf(['completed', 'processing']), 'completed'),
  /** Whether the plugin shows points in the store's My Account page. */
  showInAccount: v.optional(flag, true),
  /** Per product (or variation) id: its line items' share of the eligible amount earns × multiplier. */
  productOverrides: v.optional(v.pipe(
    v.record(productId, v.strictObject({ multiplier: decimal(0, 100, '3') }), 'must be an object of product id to {multiplier}'),
    v.check((map) => Object.keys(map).length <= 1000, 'must have at most 1000 products'),
  ), {}),
  /** What a store customer's member externalId is: the WooCommerce customer id, or the email. */
  memberIdentifier: v.optional(enumOf(['customerId', 'email']), 'customerId'),
});

export type StoreSettings = v.InferOutput<typeof storeSettingsSchema>;
export type StoreSettingsPatch = Partial<StoreSettings>;

/** The settings as stored (only what was changed) with every default filled in. */
export const withDefaults = (stored: unknown): StoreSettings => v.parse(storeSettingsSchema, stored);
