import type { Clock } from '../../shared/clock.ts';
import { AppError } from '../../shared/errors.ts';

/**
 * What the admin's sign-in limits count. Each kind allows its failures freely, then each further
 * failure locks the key for twice as long as the one before: 1 minute, 2, 4… up to an hour.
 * - account: an email, known or not (so a lockout says nothing about whether it exists);
 * - address: a client address, over every email (a guesser trying many accounts);
 * - device: a browser holding a valid device cookie for the account (OWASP's device cookies):
 *   its attempts count here alone, and no lockout of the account or address stops them;
 * - reauth: a signed-in operator proving themselves again (the current password to change it, a
 *   code to confirm or turn off the second factor): a stolen session cannot guess at them.
 */
export const SIGN_IN_LIMITS = {
  account: 5,
  address: 20,
  device: 10,
  reauth: 5,
} as const;

export type LimitKind = keyof typeof SIGN_IN_LIMITS;

const FIRST_LOCK_MS = 60_000;
const MAX_LOCK_MS = 60 * 60_000;
/** Failures are forgotten a day after the last one. */
const FORGET_AFTER_MS = 24 * 60 * 60_000;
/** Keys kept per kind at most; the oldest go first (a spray of addresses or emails cannot grow memory). */
const MAX_KEYS = 50_000;

interface Failures {
  count: number;
  lastAt: number;
  lockedUntil: number;
}

/** The keys one attempt is counted under: the device alone when it has one, else its account and its address. */
export type Attempt = { device: number } | { account: string; address: string };

/** In memory, per server process (like the other rate limits): a restart forgets them. */
export class SignInLimits {
  readonly #failures: Record<LimitKind, Map<string, Failures>> = { account: new Map(), address: new Map(), device: new Map(), reauth: new Map() };

  constructor(private readonly clock: Clock) {}

  static keysOf(attempt: Attempt): [LimitKind, string][] {
    return 'device' in attempt ? [['device', String(attempt.device)]] : [['account', attempt.account.trim().toLowerCase()], ['address', attempt.address]];
  }

  #current(kind: LimitKind, key: string, now: number): Failures | undefined {
    const failures = this.#failures[kind].get(key);
    if (failures && now - failures.lastAt > FORGET_AFTER_MS) {
      this.#failures[kind].delete(key);
      return undefined;
    }
    return failures;
  }

  /**
   * Refuses (429 with Retry-After) while any of the keys is locked, before anything is checked: a
   * right password tried during a lockout would tell the guesser it is right.
   */
  check(keys: [LimitKind, string][]): void {
    const now = this.clock().getTime();
    const until = Math.max(0, ...keys.map(([kind, key]) => this.#current(kind, key, now)?.lockedUntil ?? 0));
    if (until <= now) return;
    const seconds = Math.ceil((until - now) / 1000);
    const at = new Date(until).toISOString();
    throw new AppError(429, 'Too Many Requests', `Too many failed attempts. Try again in ${seconds} s (at ${at}).`,
      { 'retry-after': String(seconds) }, { retryAfterSeconds: seconds });
  }

  failed(keys: [LimitKind, string][]): void {
    const now = this.clock().getTime();
    for (const [kind, key] of keys) {
      const map = this.#failures[kind];
      const failures = this.#current(kind, key, now) ?? { count: 0, lastAt: now, lockedUntil: 0 };
      failures.count += 1;
      failures.lastAt = now;
      const over = failures.count - SIGN_IN_LIMITS[kind];
      if (over >= 0) failures.lockedUntil = now + Math.min(MAX_LOCK_MS, FIRST_LOCK_MS * 2 ** Math.min(over, 10));
      map.delete(key); // re-inserted at the newest end
      map.set(key, failures);
      if (map.size > MAX_KEYS) map.delete(map.keys().next().value!);
    }
  }

  /**
   * Runs an attempt under the keys: refused while one is locked; an error `counts` (a 401 by
   * default) is a failure for each key, a success clears them.
   */
  async attempt<T>(keys: [LimitKind, string][], work: () => Promise<T>, counts = (error: AppError) => error.status === 401): Promise<T> {
    this.check(keys);
    try {
      const result = await work();
      this.succeeded(keys);
      return result;
    } catch (error) {
      if (error instanceof AppError && counts(error)) this.failed(keys);
      throw error;
    }
  }

  /** A success clears the device's or the account's failures; an address's stay (others may be guessing from it). */
  succeeded(keys: [LimitKind, string][]): void {
    for (const [kind, key] of keys) if (kind !== 'address') this.#failures[kind].delete(key);
  }
}
