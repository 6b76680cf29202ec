import { randomBytes } from 'node:crypto';
import { constantTimeEqual, sha256Hex } from '../../shared/secrets.ts';

/**
 * A bearer secret for a cookie or a one-time link: 32 random bytes (256 bits), base64url. Only its
 * SHA-256 is stored, and rows are found by that hash through a unique index, so the token itself
 * is never compared and a leaked table holds nothing that signs anyone in.
 */
export const newToken = () => randomBytes(32).toString('base64url');

export const tokenHash = (token: string) => sha256Hex(token);

/** Tokens are 43 base64url characters; anything else is not looked up. */
export const isTokenShaped = (text: string | undefined): text is string => text !== undefined && /^[\w-]{43}$/.test(text);

/**
 * Rows are found by the token's hash through a unique index; the hash is then compared again in
 * constant time, as API keys are (src/domain/project/api-keys.ts), so no lookup path leaks timing.
 */
export const hashMatches = (storedHash: string, token: string) => constantTimeEqual(storedHash, tokenHash(token));
