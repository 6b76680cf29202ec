import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { badRequest, conflict, notFound } from '../../shared/errors.ts';
import { findMember } from '../members/members.ts';
import { communitySettings } from './settings.ts';
import { linkedMemberId, receiveCommunityEvent, type CommunityAnswer } from './events.ts';

/**
 * Spends a linking state: each one completes one link at most (a state seen or copied from the
 * address bar cannot link again). Forgets the states that have expired on the way.
 */
export function spendLinkState(db: Db, nonce: string, expiresAtMs: number, now: Date): void {
  atomically(db, () => {
    stmt(db, 'DELETE FROM community_link_nonces WHERE expires_at < ?').run(now.getTime());
    const spent = stmt(db, 'INSERT INTO community_link_nonces (nonce, expires_at) VALUES (?, ?) ON CONFLICT (nonce) DO NOTHING').run(nonce, expiresAtMs).changes;
    if (spent === 0) throw badRequest('This link was already used: start linking again from the widget.');
  });
}

/** The community account a member linked, for the widget. */
export function memberLink(db: Db, projectId: string, memberId: number): { communityUserId: string; username: string | null } | null {
  const settings = communitySettings(db, projectId);
  if (settings.guildId === null) return null;
  const row = stmt<{ community_user_id: string; username: string | null }>(db, `SELECT community_user_id, username FROM community_links
    WHERE project_id = ? AND guild_id = ? AND member_id = ?`).get(projectId, settings.guildId, memberId);
  return row ? { communityUserId: row.community_user_id, username: row.username } : null;
}

export interface LinkResult {
  communityUserId: string;
  externalId: string;
  /** The account-link bonus, paid the first time this community account is linked. */
  bonus: CommunityAnswer;
}

/**
 * Links a community account to a member: one account per member per guild, and one member per
 * account (409 otherwise). Linking the same pair again changes nothing and pays nothing again.
 */
export function linkCommunityAccount(
  db: Db, projectId: string, externalId: string, account: { id: string; username: string | null }, now: Date,
): LinkResult {
  return atomically(db, () => {
    const settings = communitySettings(db, projectId);
    if (settings.guildId === null) throw badRequest('This project has no community guild configured.');
    const member = findMember(db, projectId, externalId);
    if (!member) throw notFound(`No member with externalId "${externalId}" in this project`);
    const byUser = linkedMemberId(db, projectId, settings.guildId, account.id);
    if (byUser !== undefined && byUser !== member.id) throw conflict('This Discord account is already linked to another member.');
    const existing = memberLink(db, projectId, member.id);
    if (existing && existing.communityUserId !== account.id) throw conflict('This member has already linked another Discord account.');
    if (!existing) {
      stmt(db, `INSERT INTO community_links (project_id, guild_id, community_user_id, username, member_id, created_at)
        VALUES (?, ?, ?, ?, ?, ?)`).run(projectId, settings.guildId, account.id, account.username, member.id, now.toISOString());
    }
    const bonus = receiveCommunityEvent(db, settings, {
      eventId: `link:${account.id}`, eventType: 'ACCOUNT_LINK', communityUserId: account.id, communityUsername: account.username ?? undefined,
    }, now);
    const { replayed: _replayed, ...answer } = bonus;
    return { communityUserId: account.id, externalId, bonus: answer };
  });
}

/** How many of the project's members linked a Discord account. */
export const linkedMemberCount = (db: Db, projectId: string): number =>
  stmt<number>(db, 'SELECT count(*) FROM community_links WHERE project_id = ?').pluck().get(projectId)!;
