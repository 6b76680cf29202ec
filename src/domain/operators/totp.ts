import { Secret, TOTP } from 'otpauth';
import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { badRequest, conflict } from '../../shared/errors.ts';
import type { SecretBox } from '../../shared/secrets.ts';
import type { OperatorRow } from './operators.ts';

/** RFC 6238 as authenticator apps expect it: SHA-1, 6 digits, 30-second steps; a step either side is accepted (clock drift). */
const PERIOD_S = 30;
const WINDOW = 1;
const ISSUER = 'Punchcard';

const totpFor = (secret: string, email: string) => new TOTP({ issuer: ISSUER, label: email, secret: Secret.fromBase32(secret), period: PERIOD_S });

/**
 * POST /me/totp: a new secret, kept sealed and pending until a code from it is confirmed, as the
 * secret and an otpauth:// URI (the QR code an authenticator app scans). An enabled factor stays
 * as it is until then.
 */
export function beginTotp(db: Db, box: SecretBox, operator: OperatorRow): { secret: string; uri: string } {
  const secret = new Secret({ size: 20 }).base32;
  stmt(db, 'UPDATE operators SET totp_pending = ? WHERE id = ?').run(box.seal(secret), operator.id);
  return { secret, uri: totpFor(secret, operator.email).toString() };
}

/** The 30-second step `code` belongs to for `secret`, or null when it is not a current code. */
function stepOf(secret: string, email: string, code: string, now: Date): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  const delta = totpFor(secret, email).validate({ token: code, timestamp: now.getTime(), window: WINDOW });
  return delta === null ? null : Math.floor(now.getTime() / 1000 / PERIOD_S) + delta;
}

/**
 * Whether `code` is a current code of the operator's enabled factor that was not used before:
 * each step's code signs in once (a code seen over a shoulder cannot be replayed).
 */
export function totpAccepts(db: Db, box: SecretBox, operator: OperatorRow, code: string, now: Date): boolean {
  if (operator.totp_secret === null) return false;
  const step = stepOf(box.open(operator.totp_secret), operator.email, code, now);
  if (step === null || step <= operator.totp_last_step) return false;
  stmt(db, 'UPDATE operators SET totp_last_step = ? WHERE id = ?').run(step, operator.id);
  return true;
}

const wrongCode = () => badRequest('"code" is not a current code of your authenticator app; check the phone\'s clock and try the newest code.');

/** POST /me/totp/confirm: a code from the pending secret turns the factor on. */
export function confirmTotp(db: Db, box: SecretBox, operator: OperatorRow, code: string, now: Date): void {
  if (operator.totp_pending === null) throw conflict('Start with POST /api/admin/me/totp: there is no new secret to confirm.');
  const secret = box.open(operator.totp_pending);
  const step = stepOf(secret, operator.email, code, now);
  if (step === null) throw wrongCode();
  stmt(db, 'UPDATE operators SET totp_secret = ?, totp_pending = NULL, totp_last_step = ? WHERE id = ?').run(operator.totp_pending, step, operator.id);
}

/** DELETE /me/totp: a current code turns the factor off. */
export function disableTotp(db: Db, box: SecretBox, operator: OperatorRow, code: string, now: Date): void {
  if (operator.totp_secret === null) throw conflict('Two-factor sign-in is not on.');
  if (!totpAccepts(db, box, operator, code, now)) throw wrongCode();
  stmt(db, 'UPDATE operators SET totp_secret = NULL, totp_pending = NULL WHERE id = ?').run(operator.id);
}
