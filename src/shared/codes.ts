import { randomBytes, randomInt } from 'node:crypto';

/** Letters and digits read and typed without confusion (no I, O, 0, 1). 32 symbols: a byte maps without bias. */
const READABLE = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** Random text over the readable alphabet from the CSPRNG (5 bits a character). */
export function readableCode(length: number): string {
  let out = '';
  for (const byte of randomBytes(length)) out += READABLE[byte % READABLE.length];
  return out;
}

/**
 * A code that `taken` does not know yet. Collisions are astronomically rare at these lengths;
 * the loop only makes "unique" a guarantee instead of a likelihood.
 */
export function uniqueCode(make: () => string, taken: (code: string) => boolean): string {
  for (;;) {
    const code = make();
    if (!taken(code)) return code;
  }
}

/** `count` distinct items picked uniformly with the CSPRNG (a partial Fisher–Yates shuffle). */
export function pickRandomly<T>(items: T[], count: number): T[] {
  const pool = [...items];
  const picked: T[] = [];
  for (let i = 0; i < Math.min(count, pool.length); i++) {
    const j = i + randomInt(pool.length - i);
    [pool[i], pool[j]] = [pool[j]!, pool[i]!];
    picked.push(pool[i]!);
  }
  return picked;
}
