import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from the CSPRNG in blocks: one call per id was a measurable cost per award.
let pool = randomBytes(4096);
let offset = 0;

function nextByte(): number {
  if (offset === pool.length) {
    pool = randomBytes(4096);
    offset = 0;
  }
  return pool[offset++]!;
}

/** Uniformly random base62 text from the CSPRNG (rejection sampling, so no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextByte();
    if (byte < 248) out += ALPHABET[byte % 62]; // 248 = 62 * 4
  }
  return out;
}

/** Identifiers are a readable type prefix plus 20 random base62 characters (~119 bits). */
export const newId = (prefix: string) => `${prefix}_${randomBase62(20)}`;
