/** `count` requests per `perMs`: a bucket of `count` tokens that refills evenly over `perMs`. */
export interface Rate {
  count: number;
  perMs: number;
}

const UNITS: Record<string, number> = { s: 1000, min: 60_000, h: 3_600_000 };

/** How rates are written in flags, environment and project settings: `600/min`, `10/h`, `100000/s`, or `off`. */
export const RATE_PATTERN = /^(?:off|[1-9]\d{0,8}\/(?:s|min|h))$/;

/** Parses a rate; null means `off` (no limit). Throws naming `setting` when the text is not a rate. */
export function parseRate(text: string, setting: string): Rate | null {
  if (!RATE_PATTERN.test(text)) throw new Error(`${setting} must be a rate such as 600/min, 10/h or 100000/s, or "off" (got "${text}").`);
  if (text === 'off') return null;
  const [count, unit] = text.split('/') as [string, string];
  return { count: Number(count), perMs: UNITS[unit]! };
}
