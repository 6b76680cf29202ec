import { createHmac } from 'node:crypto';
import type { Db } from '../../db/connection.ts';
import { AppError } from '../../shared/errors.ts';
import { stmt } from '../../db/statements.ts';
import { findMember, type MemberProfile } from '../members/members.ts';
import { widgetSigningSecret } from '../project/projects.ts';
import { constantTimeEqual, type SecretBox } from '../../shared/secrets.ts';
import type { WidgetIdentity } from './widget-auth.ts';

/** Tokens are short; anything far longer is refused before it is decoded. */
const MAX_TOKEN_LENGTH = 1024;

/** Who a widget request comes from, however it was authenticated. */
export interface WidgetSession extends WidgetIdentity {
  /** Profile fields the shop's server signed (`member`), applied by init; empty when none were signed. */
  member: MemberProfile;
  /** True when a signed X-Widget-Auth ticket came (init then issues a session); false for a session token. */
  ticket: boolean;
}

/** A widget session as init hands it out: the widget sends `Authorization: Bearer <token>`. */
export interface IssuedSession {
  token: string;
  expiresAt: string;
}

interface Payload {
  /** project id */
  p: string;
  /** the member's externalId */
  e: string;
  /** the member's public id: erasure renames the member, so an erased member's token matches no one */
  m: string;
  /** the publishable key's id: revoking the key ends its sessions */
  k: string;
  /** expiry, milliseconds since 1970 */
  x: number;
}

/**
 * The session key is derived from the widget signing secret, so rotating the secret ends every
 * session of the project at once; nothing is stored per session.
 */
const sessionMac = (secret: string, payload: string) =>
  createHmac('sha256', createHmac('sha256', secret).update('punchcard widget session').digest()).update(payload).digest('base64url');

const sessionExpired = (message: string) => new AppError(401, 'session_expired', message);

/** Issues a session for a member whose signed ticket init has just checked. */
export function issueWidgetSession(db: Db, box: SecretBox, member: WidgetIdentity & { publicId: string }, lifetimeHours: number, now: Date): IssuedSession {
  const expires = now.getTime() + lifetimeHours * 3_600_000;
  const payload = Buffer.from(JSON.stringify({ p: member.projectId, e: member.externalId, m: member.publicId, k: member.keyId, x: expires } satisfies Payload))
    .toString('base64url');
  return { token: `pcs_${payload}.${sessionMac(widgetSigningSecret(db, box, member.projectId), payload)}`, expiresAt: new Date(expires).toISOString() };
}

/**
 * Checks a session token: its MAC under the project's current widget secret, its expiry, and that
 * the member it names still exists unerased. Every failure is a 401 `session_expired`, which tells
 * the widget to get a fresh signed ticket (from the shop's `fetchAuth`).
 */
export function verifyWidgetSession(db: Db, box: SecretBox, token: string, now: Date): WidgetIdentity {
  const match = token.length <= MAX_TOKEN_LENGTH ? /^pcs_([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]+)$/.exec(token) : null;
  if (!match) throw sessionExpired('The widget session token is malformed; call init again with a signed X-Widget-Auth ticket.');
  const [, encoded, mac] = match as unknown as [string, string, string];
  let payload: Payload;
  try {
    payload = JSON.parse(Buffer.from(encoded, 'base64url').toString('utf8')) as Payload;
  } catch {
    throw sessionExpired('The widget session token is malformed; call init again with a signed X-Widget-Auth ticket.');
  }
  if (typeof payload?.p !== 'string' || typeof payload.e !== 'string' || typeof payload.m !== 'string' || typeof payload.k !== 'string'
    || typeof payload.x !== 'number') {
    throw sessionExpired('The widget session token is malformed; call init again with a signed X-Widget-Auth ticket.');
  }
  let secret: string;
  try {
    secret = widgetSigningSecret(db, box, payload.p);
  } catch {
    throw sessionExpired('The widget session is not valid; call init again with a signed X-Widget-Auth ticket.');
  }
  if (!constantTimeEqual(sessionMac(secret, encoded), mac)) {
    throw sessionExpired('The widget session is not valid (the widget secret may have been rotated); call init again with a signed X-Widget-Auth ticket.');
  }
  if (now.getTime() >= payload.x) throw sessionExpired(`The widget session expired at ${new Date(payload.x).toISOString()}; call init again with a signed X-Widget-Auth ticket.`);
  if (findMember(db, payload.p, payload.e)?.public_id !== payload.m) {
    throw sessionExpired('The widget session\'s member no longer exists; call init again with a signed X-Widget-Auth ticket.');
  }
  const key = stmt<{ project_id: string; expires_at: string | null; revoked_at: string | null }>(db,
    'SELECT project_id, expires_at, revoked_at FROM api_keys WHERE id = ?').get(payload.k);
  if (!key || key.project_id !== payload.p || key.revoked_at !== null || (key.expires_at !== null && key.expires_at <= now.toISOString())) {
    throw sessionExpired('The publishable key this widget session was started with has been revoked or has expired; call init again with a live key.');
  }
  return { projectId: payload.p, externalId: payload.e, keyId: payload.k };
}
