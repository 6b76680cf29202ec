import type { Clock } from '../domain/clock.ts';

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

interface Bucket {
  tokens: number;
  at: number;
}

/**
 * Token buckets by key in one Map, refilled lazily from the injected clock. The Map keeps at most
 * `maxEntries` buckets, dropping the least recently used: a dropped bucket was the quietest, and
 * a full bucket is the same as none.
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();

  constructor(private readonly clock: Clock, private readonly maxEntries = 100_000) {}

  /** The bucket with its refill since the last look, moved to the most recently used end. */
  #current(key: string, rate: Rate): Bucket {
    const now = this.clock().getTime();
    const bucket = this.#buckets.get(key);
    this.#buckets.delete(key);
    const current = bucket
      ? { tokens: Math.min(rate.count, bucket.tokens + (Math.max(0, now - bucket.at) * rate.count) / rate.perMs), at: now }
      : { tokens: rate.count, at: now };
    this.#buckets.set(key, current);
    if (this.#buckets.size > this.maxEntries) this.#buckets.delete(this.#buckets.keys().next().value!);
    return current;
  }

  /** Whole seconds until one token is back (at least 1). */
  static #wait(bucket: Bucket, rate: Rate): number {
    return Math.max(1, Math.ceil(((1 - bucket.tokens) * rate.perMs) / rate.count / 1000));
  }

  /** Takes a token: 0 when there was one, else the whole seconds until there is. */
  take(key: string, rate: Rate): number {
    const bucket = this.#current(key, rate);
    if (bucket.tokens < 1) return TokenBuckets.#wait(bucket, rate);
    bucket.tokens -= 1;
    return 0;
  }

  /** Like take, but leaves the token: for limits counted only on failure. */
  peek(key: string, rate: Rate): number {
    const bucket = this.#current(key, rate);
    return bucket.tokens < 1 ? TokenBuckets.#wait(bucket, rate) : 0;
  }

  /** Uses up a token when there is one (a failure that counts even if it was the last allowed). */
  spend(key: string, rate: Rate): void {
    const bucket = this.#current(key, rate);
    bucket.tokens = Math.max(0, bucket.tokens - 1);
  }

  get size(): number {
    return this.#buckets.size;
  }
}
