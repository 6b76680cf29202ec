import { createHmac } from 'node:crypto';
import type { Db } from '../../db/connection.ts';
import { AppError, badRequest, notFound } from '../../shared/errors.ts';
import { checkKey, livePublishableKey } from '../project/api-keys.ts';
import type { MemberProfile } from '../members/members.ts';
import { widgetSigningSecret } from '../project/projects.ts';
import { constantTimeEqual, type SecretBox } from '../../shared/secrets.ts';

/** How far a widget timestamp may lie from server time, either way. */
export const WIDGET_TIMESTAMP_WINDOW_MS = 5 * 60 * 1000;

/** The signed part of an X-Widget-Auth header. */
export interface WidgetClaims {
  publicKey: string;
  externalId: string;
  /** Milliseconds since the epoch, when the shop's server signed. */
  timestamp: number;
  /**
   * Profile fields as the exact JSON text the shop's server signed; the signature then covers it.
   * Profile data sent any other way (an object) is not signed and is ignored.
   */
  member?: string | undefined;
  signature: string;
}

export interface WidgetIdentity {
  projectId: string;
  externalId: string;
  /** The publishable key the page used: a session ends when it is revoked or expires. */
  keyId: string;
}

/**
 * Lowercase hex HMAC-SHA256 of `publicKey:externalId:timestamp`, keyed with the widget signing
 * secret; with signed profile fields, of `publicKey:externalId:timestamp:member` (`member` the JSON
 * text exactly as sent). The shorter form stays valid, so integrations signed before profile
 * fields were covered keep working (their profile fields are ignored).
 */
export const widgetSignature = (secret: string, publicKey: string, externalId: string, timestamp: number, member?: string) =>
  createHmac('sha256', secret).update(`${publicKey}:${externalId}:${timestamp}${member === undefined ? '' : `:${member}`}`).digest('hex');

/** Below this a timestamp is surely seconds, not milliseconds: 10^12 ms is September 2001. */
const SECONDS_LOOK = 1e12;

/** Names the unit and the server's time, so a seconds timestamp or a wrong clock is plain to see. */
function timestampProblem(timestamp: number, now: Date): string {
  const serverTime = `The server's time is ${now.getTime()} ms (${now.toISOString()}).`;
  if (timestamp > 0 && timestamp < SECONDS_LOOK) {
    return `The timestamp ${timestamp} looks like seconds; it must be milliseconds since 1970 (Date.now() in JavaScript, time() * 1000 elsewhere). ${serverTime}`;
  }
  return timestamp < now.getTime()
    ? `The signature has expired: its timestamp ${timestamp} (milliseconds since 1970) is more than 5 minutes old. Sign again on your server for each page view. ${serverTime}`
    : `The timestamp ${timestamp} (milliseconds since 1970) is more than 5 minutes in the future; check the clock of the server that signs. ${serverTime}`;
}

export const widgetUnauthorized = (message: string) => new AppError(401, 'Unauthorized', message);

/**
 * Checks a widget request: a live publishable key, a timestamp within the window, and a signature
 * made with that project's widget secret. Each failure says which check failed, never what the
 * expected signature would have been.
 */
export function verifyWidgetClaims(db: Db, box: SecretBox, claims: WidgetClaims, now: Date): WidgetIdentity {
  if (!claims.publicKey.startsWith('pk_')) {
    throw widgetUnauthorized('"publicKey" must be the project\'s publishable key (pk_live_…). Never put a secret key in a web page.');
  }
  const key = checkKey(db, claims.publicKey, now);
  if ('problem' in key) {
    throw widgetUnauthorized(key.problem === 'expired'
      ? `The publishable key expired at ${key.expiresAt}.`
      : 'The publishable key is not recognised or has been revoked.');
  }
  if (key.type !== 'publishable') throw widgetUnauthorized('"publicKey" must be a publishable key (pk_live_…).');
  if (Math.abs(claims.timestamp - now.getTime()) > WIDGET_TIMESTAMP_WINDOW_MS) throw widgetUnauthorized(timestampProblem(claims.timestamp, now));
  const expected = widgetSignature(widgetSigningSecret(db, box, key.projectId), claims.publicKey, claims.externalId, claims.timestamp, claims.member);
  if (!constantTimeEqual(expected, claims.signature)) {
    throw widgetUnauthorized(claims.member === undefined
      ? 'The signature does not match: sign "publicKey:externalId:timestamp" with HMAC-SHA256 and the project\'s widget secret (whsk_…), as lowercase hex.'
      : 'The signature does not match: with "member" (signed profile fields), sign "publicKey:externalId:timestamp:member", member being the JSON text exactly as sent, with HMAC-SHA256 and the project\'s widget secret (whsk_…), as lowercase hex.');
  }
  return { projectId: key.projectId, externalId: claims.externalId, keyId: key.keyId };
}

export interface SignedWidgetConfig extends WidgetClaims {
  /** The X-Widget-Auth header value for these claims. */
  header: string;
}

/**
 * Signs a widget session for one member, as a shop's server does: used by `punchcard widget sign`
 * and the demo page. Uses the project's newest live publishable key unless one is given.
 */
export function signWidgetSession(
  db: Db,
  box: SecretBox,
  input: { projectId: string; externalId: string; publicKey?: string | undefined; member?: MemberProfile | undefined },
  now: Date,
): SignedWidgetConfig {
  const publicKey = input.publicKey ?? livePublishableKey(db, input.projectId, now);
  if (publicKey === undefined) {
    throw notFound(`Project "${input.projectId}" has no live publishable key readable here; create one with "punchcard keys create --project ${input.projectId} --type publishable".`);
  }
  const key = checkKey(db, publicKey, now);
  if ('problem' in key || key.type !== 'publishable' || key.projectId !== input.projectId) {
    throw badRequest(`${publicKey.slice(0, 12)}… is not a live publishable key of project "${input.projectId}".`);
  }
  const timestamp = now.getTime();
  const member = input.member === undefined ? undefined : JSON.stringify(input.member);
  const signature = widgetSignature(widgetSigningSecret(db, box, input.projectId), publicKey, input.externalId, timestamp, member);
  const claims = { publicKey, externalId: input.externalId, timestamp, ...(member === undefined ? {} : { member }), signature };
  return { ...claims, header: Buffer.from(JSON.stringify(claims)).toString('base64') };
}
