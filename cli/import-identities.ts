// The duplicate check of `members import`: every row's identity (externalId, or email) seen once.

/**
 * The identities seen so far, with the line each was first on: an open-addressing table of 53-bit
 * hashes in typed arrays, 12 bytes a slot. A Map of a million identities (`email:shopper.N@…`) held
 * 112 MB of heap; this holds 24 MB at a million rows. Two identities hashing alike (odds about 1 in
 * 10,000 at a million rows) would be reported as one: a false "already on line", never a row
 * imported twice.
 */
export class SeenIdentities {
  private hashes = new Float64Array(1 << 16);
  private lines = new Uint32Array(1 << 16);
  private size = 0;

  /** The line the identity was first on, or undefined after recording it on `line`. */
  firstLine(hash: number, line: number): number | undefined {
    if ((this.size + 1) * 2 > this.hashes.length) this.grow();
    // 0 marks an empty slot: a hash of 0 is stored as 1 (one more collision in 2^53).
    const key = hash === 0 ? 1 : hash;
    const mask = this.hashes.length - 1;
    for (let slot = key % this.hashes.length; ; slot = (slot + 1) & mask) {
      if (this.hashes[slot] === 0) {
        this.hashes[slot] = key;
        this.lines[slot] = line;
        this.size++;
        return undefined;
      }
      if (this.hashes[slot] === key) return this.lines[slot];
    }
  }

  private grow(): void {
    const { hashes, lines } = this;
    this.hashes = new Float64Array(hashes.length * 2);
    this.lines = new Uint32Array(lines.length * 2);
    this.size = 0;
    for (let i = 0; i < hashes.length; i++) if (hashes[i] !== 0) this.firstLine(hashes[i]!, lines[i]!);
  }
}

/** 53 bits of a string (cyrb53): a row identity in the duplicate check, without keeping a million strings. */
export function identityHash(text: string): number {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}
