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

/** Milliseconds since 1970 as 8 base62 characters: fixed width, so ids sort by creation time. */
function timePart(ms: number): string {
  let out = '';
  for (let i = 0; i < 8; i++) {
    out = ALPHABET[ms % 62]! + out;
    ms = Math.floor(ms / 62);
  }
  return out;
}

/**
 * Identifiers are a readable type prefix, a time part and 14 random base62 characters (~83 bits).
 * Time-ordered ids land next to each other in the primary-key index, so a commit of many
 * transactions touches a few index pages instead of one random page per row.
 */
export const newId = (prefix: string) => `${prefix}_${timePart(Date.now())}${randomBase62(14)}`;
