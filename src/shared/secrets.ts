import { createCipheriv, createDecipheriv, createHmac, hash, randomBytes, timingSafeEqual } from 'node:crypto';
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

/** Accepts 64 hex characters or the base64 form of 32 bytes; `source` (the variable or file) is named on failure. */
export function parseMasterKey(text: string, source = 'PUNCHCARD_MASTER_KEY'): Buffer {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  const decoded = Buffer.from(trimmed, 'base64');
  if (decoded.length === 32) return decoded;
  throw new Error(`${source} must hold a 32-byte key, written as 64 hex characters or base64 (try: openssl rand -hex 32)`);
}

/**
 * Names a master key without revealing it: an HMAC keyed with it over a constant. The database
 * records its key's fingerprint, so a command that finds the wrong key or none can say which it needs.
 */
export const keyFingerprint = (key: Buffer) => createHmac('sha256', key).update('punchcard master key fingerprint').digest('hex').slice(0, 16);

export interface FoundKey {
  key: Buffer;
  /** PUNCHCARD_MASTER_KEY or the key file's path. */
  source: string;
}

/** The master key from PUNCHCARD_MASTER_KEY, or else from the key file beside the database; null when there is neither. */
export function findMasterKey(envValue: string | undefined, keyFile: string): FoundKey | null {
  if (envValue) return { key: parseMasterKey(envValue), source: 'PUNCHCARD_MASTER_KEY' };
  if (existsSync(keyFile)) return { key: parseMasterKey(readFileSync(keyFile, 'utf8'), keyFile), source: keyFile };
  return null;
}

/** Writes a new random key file (mode 0600). Only for a database that holds no encrypted data yet. */
export function createKeyFile(keyFile: string): FoundKey {
  const key = randomBytes(32);
  writeFileSync(keyFile, `${key.toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
  return { key, source: keyFile };
}
