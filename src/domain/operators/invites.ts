import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { addMs } from '../../shared/clock.ts';
import { notFound } from '../../shared/errors.ts';
import { hashMatches, isTokenShaped, newToken, tokenHash } from './tokens.ts';
import type { Role } from './roles.ts';

/** A link is valid this long, and once. */
export const INVITE_VALID_MS = 24 * 60 * 60 * 1000;

interface InviteRow {
  id: number;
  token_hash: string;
  operator_id: string;
  project_id: string | null;
  role: Role | null;
  expires_at: string;
  email: string;
  project_name: string | null;
}

/** What the link's page shows before the operator chooses a password. */
export interface InviteView {
  email: string;
  /** The role it gives and the project's name; both null for a reset link (it keeps the roles the operator holds). */
  role: Role | null;
  projectName: string | null;
  expiresAt: string;
  kind: 'invite' | 'reset';
}

export interface OpenInvite extends InviteView {
  rowId: number;
  operatorId: string;
  projectId: string | null;
}

/** Creates a one-time link for the operator (with a project and role: an invite; without: a reset). Returns its token. */
export function createInvite(db: Db, operatorId: string, grant: { projectId: string; role: Role } | null, now: Date): string {
  const token = newToken();
  stmt(db, `INSERT INTO operator_invites (token_hash, operator_id, project_id, role, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)`)
    .run(tokenHash(token), operatorId, grant?.projectId ?? null, grant?.role ?? null, now.toISOString(), addMs(now, INVITE_VALID_MS).toISOString());
  return token;
}

// One message for a link that never existed, was used or expired: the page cannot tell a guesser which.
const invalidLink = () => notFound('This link is not valid: it was used already, it expired (links last 24 hours), or it never existed. Ask for a new one.');

/** The open link a token names, or 404. */
export function openInvite(db: Db, token: string, now: Date): OpenInvite {
  if (!isTokenShaped(token)) throw invalidLink();
  const row = stmt<InviteRow>(db, `SELECT i.id, i.token_hash, i.operator_id, i.project_id, i.role, i.expires_at, o.email, p.name AS project_name
    FROM operator_invites i JOIN operators o ON o.id = i.operator_id LEFT JOIN projects p ON p.id = i.project_id
    WHERE i.token_hash = ? AND i.used_at IS NULL`).get(tokenHash(token));
  if (!row || !hashMatches(row.token_hash, token) || row.expires_at <= now.toISOString()) throw invalidLink();
  return {
    rowId: row.id, operatorId: row.operator_id, projectId: row.project_id, email: row.email, role: row.role, projectName: row.project_name,
    expiresAt: row.expires_at, kind: row.project_id === null ? 'reset' : 'invite',
  };
}

export const inviteView = ({ email, role, projectName, expiresAt, kind }: OpenInvite): InviteView => ({ email, role, projectName, expiresAt, kind });

/**
 * The link is used: the role it gave is accepted, and every other open link of the operator ends
 * (the password they lead to is chosen now). Roles other links gave stay waiting for their own.
 */
export function useInvite(db: Db, invite: OpenInvite, now: Date): void {
  atomically(db, () => {
    if (invite.projectId !== null) {
      stmt(db, 'UPDATE operator_roles SET accepted_at = ? WHERE operator_id = ? AND project_id = ? AND accepted_at IS NULL')
        .run(now.toISOString(), invite.operatorId, invite.projectId);
    }
    endOpenLinks(db, invite.operatorId, now);
  });
}

/** Ends the operator's open links (a reset, a used link). */
export function endOpenLinks(db: Db, operatorId: string, now: Date): void {
  stmt(db, 'UPDATE operator_invites SET used_at = ? WHERE operator_id = ? AND used_at IS NULL').run(now.toISOString(), operatorId);
}

/** Deletes up to `limit` links that were used or expired more than a day ago. */
export function pruneInvites(db: Db, now: Date, limit: number): number {
  const before = addMs(now, -INVITE_VALID_MS).toISOString();
  return stmt(db, 'DELETE FROM operator_invites WHERE id IN (SELECT id FROM operator_invites WHERE expires_at < ? LIMIT ?)').run(before, limit).changes;
}
