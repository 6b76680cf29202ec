import { createCipheriv, createDecipheriv, hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export const sha256Hex = (text: string) => hash('sha256', text, 'hex');

/** Constant-time string comparison; unequal lengths are compared against themselves to keep timing flat. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/**
 * Encrypts secrets that must be read back (widget signing secret, webhook secrets, store
 * credentials) with AES-256-GCM. Stored form: `v1.<iv>.<tag>.<ciphertext>`, base64url parts.
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Buffer) {
    if (key.length !== 32) throw new Error('The master key must be 32 bytes');
    this.#key = key;
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, ciphertext] = sealed.split('.');
    if (version !== 'v1' || iv === undefined || tag === undefined || ciphertext === undefined) {
      throw new Error('Unrecognised encrypted value');
    }
    const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
  }
}

/** Accepts 64 hex characters or the base64 form of 32 bytes. */
export function parseMasterKey(text: string): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const decoded = Buffer.from(trimmed, 'base64');
  if (decoded.length === 32) return decoded;
  throw new Error('PUNCHCARD_MASTER_KEY must be 32 bytes, written as 64 hex characters or base64 (try: openssl rand -hex 32)');
}

/**
 * The master key comes from PUNCHCARD_MASTER_KEY, or else from a key file beside the database,
 * created (mode 0600) on first use. Lose the key and the encrypted secrets are lost with it.
 */
export function loadMasterKey(envValue: string | undefined, keyFile: string): Buffer {
  if (envValue) return parseMasterKey(envValue);
  if (existsSync(keyFile)) return parseMasterKey(readFileSync(keyFile, 'utf8'));
  const key = randomBytes(32);
  writeFileSync(keyFile, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return key;
}
