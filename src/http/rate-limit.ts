import type { Clock } from '../shared/clock.ts';
import type { Rate } from '../shared/rates.ts';

interface Bucket {
  tokens: number;
  at: number;
  /** When it last moved to the most recently used end. */
  movedAt: number;
}

/**
 * A bucket moves to the most recently used end at most this often: deleting and adding its Map
 * entry on every request cost garbage collection (SwapList says how). Once a second keeps the order
 * least recently used to the second.
 */
const MOVE_EVERY_MS = 1000;

/**
 * Token buckets by key in one Map, refilled lazily from the injected clock. The Map keeps at most
 * `maxEntries` buckets, dropping the least recently used (to the second): a dropped bucket was the
 * quietest, and a full bucket is the same as none.
 */
export class TokenBuckets {
  readonly #buckets = new Map<string, Bucket>();

  constructor(private readonly clock: Clock, private readonly maxEntries = 100_000) {}

  /** The bucket with its refill since the last look, updated in place. */
  #current(key: string, rate: Rate): Bucket {
    const now = this.clock().getTime();
    const bucket = this.#buckets.get(key);
    if (!bucket) {
      const fresh = { tokens: rate.count, at: now, movedAt: now };
      this.#buckets.set(key, fresh);
      if (this.#buckets.size > this.maxEntries) this.#buckets.delete(this.#buckets.keys().next().value!);
      return fresh;
    }
    bucket.tokens = Math.min(rate.count, bucket.tokens + (Math.max(0, now - bucket.at) * rate.count) / rate.perMs);
    bucket.at = now;
    if (now - bucket.movedAt >= MOVE_EVERY_MS) {
      bucket.movedAt = now;
      this.#buckets.delete(key);
      this.#buckets.set(key, bucket);
    }
    return bucket;
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
