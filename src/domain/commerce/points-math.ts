import { MILLI, type Rounding, type StoreSettings } from './store-settings.ts';

/**
 * WooCommerce's money ("12.34", "-10.00", "5") as integer cents, from the text itself, never
 * through a float. A shop with more than two price decimals is rounded to the cent, halves away from zero.
 */
export function toCents(money: string): number {
  const match = /^(-?)(\d{1,13})(?:\.(\d*))?$/.exec(money.trim());
  if (!match) throw new RangeError(`"${money}" is not an amount of money`);
  const [, sign, whole, fraction = ''] = match;
  const cents = Number(whole) * 100 + Number(fraction.padEnd(2, '0').slice(0, 2)) + (Number(fraction[2] ?? '0') >= 5 ? 1 : 0);
  return sign === '-' ? -cents : cents;
}

/** Whether text is money toCents reads. */
export const isMoney = (text: string) => /^-?\d{1,13}(?:\.\d*)?$/.test(text.trim());

/** Cents as WooCommerce writes money: "12.50". */
export const fromCents = (cents: number) => `${cents < 0 ? '-' : ''}${Math.floor(Math.abs(cents) / 100)}.${String(Math.abs(cents) % 100).padStart(2, '0')}`;

/** A non-negative fraction rounded to a whole number by the store's rounding mode, exactly (BigInt). */
export function roundBy(mode: Rounding, numerator: bigint, denominator: bigint): number {
  if (numerator <= 0n) return 0;
  const quotient = numerator / denominator;
  const remainder = numerator % denominator;
  if (remainder === 0n) return Number(quotient);
  if (mode === 'FLOOR') return Number(quotient);
  if (mode === 'CEIL') return Number(quotient + 1n);
  return Number(remainder * 2n >= denominator ? quotient + 1n : quotient); // ROUND: halves up
}

export const toMilli = (value: number) => BigInt(Math.round(value * MILLI));

export interface LineItemFacts {
  productId: number;
  variationId: number;
  totalCents: number;
  taxCents: number;
}

/** What the points of an order depend on, in cents. */
export interface OrderFacts {
  totalCents: number;
  shippingCents: number;
  shippingTaxCents: number;
  taxCents: number;
  lines: LineItemFacts[];
}

/**
 * The amount that earns: the total, less shipping (with its tax) when shipping is excluded, less
 * all tax when tax is excluded. Never below zero.
 */
export function eligibleCents(order: OrderFacts, settings: StoreSettings): number {
  let cents = order.totalCents;
  if (settings.excludeTax) cents -= order.taxCents;
  if (settings.excludeShipping) cents -= order.shippingCents + (settings.excludeTax ? 0 : order.shippingTaxCents);
  return Math.max(cents, 0);
}

/**
 * points = rounded(eligible × pointsPerDollar × product multiplier), where each line item's share
 * of the eligible amount (its total, plus its tax when tax counts) is weighted by its product's
 * multiplier (a variation's own override first) and the rest (shipping, fees) by 1. All in integers:
 * cents × thousandths × thousandths, rounded once.
 */
export function orderPoints(order: OrderFacts, settings: StoreSettings): number {
  const eligible = BigInt(eligibleCents(order, settings));
  const overrides = settings.productOverrides;
  let weighted = eligible * BigInt(MILLI);
  if (Object.keys(overrides).length > 0) {
    for (const line of order.lines) {
      const override = overrides[String(line.variationId)] ?? overrides[String(line.productId)];
      if (!override) continue;
      const share = BigInt(line.totalCents + (settings.excludeTax ? 0 : line.taxCents));
      weighted += share * (toMilli(override.multiplier) - BigInt(MILLI));
    }
  }
  return roundBy(settings.rounding, weighted * toMilli(settings.pointsPerDollar), 100n * BigInt(MILLI) * BigInt(MILLI));
}

/**
 * The points refunds of `refundedCents` take back from an order that earned `fullPoints` for
 * `totalCents`: the refunded fraction of them, rounded as the store rounds. Computed on the running
 * sum of refunds, so refunds of the whole order take back exactly what it earned.
 */
export function refundedPoints(fullPoints: number, refundedCents: number, totalCents: number, rounding: Rounding): number {
  if (totalCents <= 0 || refundedCents <= 0) return 0;
  if (refundedCents >= totalCents) return fullPoints;
  return Math.min(roundBy(rounding, BigInt(fullPoints) * BigInt(refundedCents), BigInt(totalCents)), fullPoints);
}
