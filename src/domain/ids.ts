import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniformly random base62 text from the CSPRNG (rejection sampling, so no modulo bias). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += ALPHABET[byte % 62]; // 248 = 62 * 4
      if (out.length === length) break;
    }
  }
  return out;
}

/** Identifiers are a readable type prefix plus 20 random base62 characters (~119 bits). */
export const newId = (prefix: string) => `${prefix}_${randomBase62(20)}`;
