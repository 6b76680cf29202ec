import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { hashMatches, isTokenShaped, newToken, tokenHash } from './tokens.ts';

/**
 * Device cookies (OWASP, "Slow Down Online Guessing Attacks with Device Cookies"): a browser that
 * signed in successfully to an account keeps a cookie naming that account. Sign-in attempts that
 * carry a valid one are limited per device, so a guesser locking out the account or the address
 * never locks out its owner. OWASP signs the cookie with a server key; here it is a random token
 * kept hashed, like sessions: as unforgeable, and a reset can revoke it.
 */
export function issueDevice(db: Db, operatorId: string, now: Date): string {
  const token = newToken();
  stmt(db, 'INSERT INTO operator_devices (token_hash, operator_id, created_at) VALUES (?, ?, ?)').run(tokenHash(token), operatorId, now.toISOString());
  return token;
}

/** The device's row id when the cookie is valid for the account with this email; else undefined. */
export function deviceFor(db: Db, token: string | undefined, email: string): number | undefined {
  if (!isTokenShaped(token)) return undefined;
  const row = stmt<{ id: number; token_hash: string }>(db, `SELECT d.id, d.token_hash FROM operator_devices d JOIN operators o ON o.id = d.operator_id
    WHERE d.token_hash = ? AND o.email = ?`).get(tokenHash(token), email.trim());
  return row && hashMatches(row.token_hash, token) ? row.id : undefined;
}

/** A reset, a new password or a removal: the operator's browsers must prove the password again. */
export function forgetDevices(db: Db, operatorId: string): void {
  stmt(db, 'DELETE FROM operator_devices WHERE operator_id = ?').run(operatorId);
}

/** Device cookies last a year; their rows go a little after. */
export const DEVICE_KEPT_MS = 400 * 24 * 60 * 60 * 1000;

/** Deletes up to `limit` devices whose cookie has expired. */
export function pruneDevices(db: Db, now: Date, limit: number): number {
  const before = new Date(now.getTime() - DEVICE_KEPT_MS).toISOString();
  return stmt(db, 'DELETE FROM operator_devices WHERE id IN (SELECT id FROM operator_devices WHERE created_at < ? ORDER BY id LIMIT ?)').run(before, limit).changes;
}
