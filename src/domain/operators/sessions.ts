import { hash } from 'node:crypto';
import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { addMs } from '../../shared/clock.ts';
import { notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { hashMatches, isTokenShaped, newToken, tokenHash } from './tokens.ts';

/** A session ends after 12 hours without a request, and 7 days after sign-in whatever happens. */
export const SESSION_IDLE_MS = 12 * 60 * 60 * 1000;
export const SESSION_MAX_MS = 7 * 24 * 60 * 60 * 1000;
/** last_seen_at is rewritten at most this often: a write per page view would cost an fsync each. */
const TOUCH_EVERY_MS = 60 * 1000;

interface SessionRow {
  id: number;
  public_id: string;
  operator_id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  user_agent: string | null;
  address: string | null;
}

export interface SessionView {
  id: string;
  createdAt: string;
  lastSeenAt: string;
  /** When it ends unless used again: 12 hours after the last request, at most 7 days after sign-in. */
  expiresAt: string;
  userAgent: string | null;
  address: string | null;
}

export interface ActiveSession extends SessionView {
  rowId: number;
  operatorId: string;
}

const SESSION_COLUMNS = 'SELECT id, public_id, operator_id, created_at, last_seen_at, expires_at, user_agent, address';
const SESSION_SELECT = `${SESSION_COLUMNS} FROM operator_sessions`;

/** The earlier of 12 hours after the last request and the 7 days' end (ISO text compares in time order). */
const endsAt = (row: SessionRow) => [addMs(new Date(row.last_seen_at), SESSION_IDLE_MS).toISOString(), row.expires_at].sort()[0]!;

const toView = (row: SessionRow): SessionView => ({
  id: row.public_id, createdAt: row.created_at, lastSeenAt: row.last_seen_at, expiresAt: endsAt(row), userAgent: row.user_agent, address: row.address,
});

/** Starts a session for the operator; the token goes into the cookie and is never stored. */
export function startSession(db: Db, operatorId: string, client: { userAgent: string | null; address: string | null }, now: Date): { token: string } {
  const token = newToken();
  const at = now.toISOString();
  stmt(db, `INSERT INTO operator_sessions (public_id, operator_id, token_hash, created_at, last_seen_at, expires_at, user_agent, address)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(newId('ses'), operatorId, tokenHash(token), at, at, addMs(now, SESSION_MAX_MS).toISOString(),
    client.userAgent?.slice(0, 200) ?? null, client.address);
  return { token };
}

/** The live session a cookie names, or undefined (unknown, idle 12 hours, or past its 7 days). */
export function sessionByToken(db: Db, token: string | undefined, now: Date): ActiveSession | undefined {
  if (!isTokenShaped(token)) return undefined;
  const row = stmt<SessionRow & { token_hash: string }>(db, `${SESSION_COLUMNS}, token_hash FROM operator_sessions WHERE token_hash = ?`).get(tokenHash(token));
  if (!row || !hashMatches(row.token_hash, token) || endsAt(row) <= now.toISOString()) return undefined;
  return { ...toView(row), rowId: row.id, operatorId: row.operator_id };
}

/** Whether the session's last request is old enough to record this one (see TOUCH_EVERY_MS). */
export const sessionNeedsTouch = (session: ActiveSession, now: Date) => now.getTime() - Date.parse(session.lastSeenAt) >= TOUCH_EVERY_MS;

export function touchSession(db: Db, rowId: number, now: Date): void {
  stmt(db, 'UPDATE operator_sessions SET last_seen_at = ? WHERE id = ?').run(now.toISOString(), rowId);
}

/** The operator's sessions that have not ended, newest first. */
export function listSessions(db: Db, operatorId: string, now: Date): SessionView[] {
  return stmt<SessionRow>(db, `${SESSION_SELECT} WHERE operator_id = ? ORDER BY id DESC`).all(operatorId)
    .filter((row) => endsAt(row) > now.toISOString()).map(toView);
}

/** Ends one of the operator's sessions by its id (404 for anyone else's). */
export function endSession(db: Db, operatorId: string, sessionId: string): void {
  if (stmt(db, 'DELETE FROM operator_sessions WHERE public_id = ? AND operator_id = ?').run(sessionId, operatorId).changes === 0) {
    throw notFound(`No session with id "${sessionId}" of yours`);
  }
}

export function endSessionRow(db: Db, rowId: number): void {
  stmt(db, 'DELETE FROM operator_sessions WHERE id = ?').run(rowId);
}

/** Ends every session of the operator but `keepRowId` (a password change keeps the browser that made it). */
export function endAllSessions(db: Db, operatorId: string, keepRowId = 0): number {
  return stmt(db, 'DELETE FROM operator_sessions WHERE operator_id = ? AND id <> ?').run(operatorId, keepRowId).changes;
}

/** Deletes up to `limit` sessions that have ended (idle or past their 7 days). */
export function pruneSessions(db: Db, now: Date, limit: number): number {
  const idleSince = addMs(now, -SESSION_IDLE_MS).toISOString();
  return stmt(db, `DELETE FROM operator_sessions WHERE id IN (SELECT id FROM operator_sessions WHERE last_seen_at < ? OR expires_at <= ? LIMIT ?)`)
    .run(idleSince, now.toISOString(), limit).changes;
}

/**
 * The per-session CSRF token the admin sends in X-CSRF-Token: derived from the session's own
 * secret token (which only the HttpOnly cookie holds), so it needs no storage and no other page
 * can know it.
 */
export const csrfTokenFor = (sessionToken: string) => hash('sha256', `punchcard admin csrf\n${sessionToken}`, 'base64url');
