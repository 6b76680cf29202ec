/** An amount of money in a currency (ISO 4217), as a decimal number of the currency's units. */
export interface Money {
  amount: number;
  currency: string;
}

/** How many decimals the currency's amounts have (2 for EUR, 0 for JPY, 3 for BHD). */
const minorDigits = (currency: string) => new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;

/**
 * `points` at `perPoint` each, rounded to the currency's smallest unit (halves up). The value per
 * point counts to 6 decimals (0.0125 is 12,500 millionths), and the product is an integer (BigInt),
 * so no float rounds a large liability wrongly.
 */
export function pointsValue(points: number, perPoint: Money): Money {
  const digits = minorDigits(perPoint.currency);
  const micros = BigInt(Math.round(perPoint.amount * 1e6));
  const scale = 10n ** BigInt(6 - Math.min(digits, 6));
  const product = BigInt(points) * micros;
  const minor = (product + scale / 2n) / scale;
  return { amount: Number(minor) / 10 ** digits, currency: perPoint.currency };
}
