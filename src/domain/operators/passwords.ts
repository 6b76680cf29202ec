import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** scrypt's cost: N (CPU and memory, a power of two), r (block size), p (parallelization). */
export interface ScryptCost {
  N: number;
  r: number;
  p: number;
}

/**
 * OWASP's minimum for scrypt at 32 MiB (N=2^15, r=8, p=3, as strong as N=2^17 with p=1): about
 * 0.15-0.35 s of one libuv thread per check on a small server, never the event loop's time.
 */
export const DEFAULT_SCRYPT: ScryptCost = { N: 2 ** 15, r: 8, p: 3 };

export const MIN_PASSWORD_LENGTH = 12;
/** Longer passwords only cost hashing time; no pass phrase needs more. */
export const MAX_PASSWORD_LENGTH = 256;

const KEY_BYTES = 32;
const SALT_BYTES = 16;

const derive = (password: string, salt: Buffer, cost: ScryptCost): Promise<Buffer> => new Promise((resolve, reject) => {
  // scrypt needs 128·N·r bytes; Node refuses anything over maxmem (32 MiB by default), so room is made for the chosen cost.
  scrypt(password.normalize('NFC'), salt, KEY_BYTES, { ...cost, maxmem: 256 * cost.N * cost.r }, (error, key) => (error ? reject(error) : resolve(key)));
});

/** `scrypt$N$r$p$salt$key` (base64): the cost is kept with each hash, so raising it later leaves old hashes readable. */
export async function hashPassword(password: string, cost: ScryptCost): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost);
  return ['scrypt', cost.N, cost.r, cost.p, salt.toString('base64'), key.toString('base64')].join('$');
}

const DUMMY_SALT = randomBytes(SALT_BYTES);

/**
 * Whether `password` matches `stored`. With no stored hash (an unknown email, an invite not yet
 * accepted) a dummy hash of the same cost is computed, so the answer takes as long either way.
 */
export async function verifyPassword(password: string, stored: string | null, cost: ScryptCost): Promise<boolean> {
  const parts = stored?.split('$') ?? [];
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    await derive(password, DUMMY_SALT, cost);
    return false;
  }
  const [, N, r, p, salt, key] = parts as [string, string, string, string, string, string];
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'), { N: Number(N), r: Number(r), p: Number(p) });
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
