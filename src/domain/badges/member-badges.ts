import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { getItem, liveItems } from '../catalog/catalog-items.ts';
import { badges, type Badge, type BadgeCriterion } from '../catalog/badge-kind.ts';
import { hotCatalog } from '../catalog/hot-catalog.ts';
import { conflict, forbidden, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { requireMember, type MemberRow } from '../members/members.ts';
import { emit } from '../events/record-event.ts';

/** A badge a member holds (server API view). */
export interface MemberBadge {
  id: string;
  badgeId: string;
  name: string;
  description: string | null;
  imageUrl: string | null;
  rarity: string;
  earnedAt: string;
}

type BadgeSource = 'manual' | 'quest' | 'criteria';

export function listMemberBadges(db: Db, projectId: string, externalId: string): { badges: MemberBadge[] } {
  const member = requireMember(db, projectId, externalId);
  const rows = stmt<MemberBadge>(db, `SELECT mb.public_id AS id, b.id AS badgeId, b.name, b.description, b.image_url AS imageUrl,
    b.rarity, mb.awarded_at AS earnedAt FROM member_badges mb JOIN badges b ON b.id = mb.badge_id
    WHERE mb.member_id = ? ORDER BY mb.id`).all(member.id);
  return { badges: rows };
}

/** The widget's badge view: what the member holds (with awardedAt) and the live badges they do not. */
export function memberBadgeBoard(db: Db, projectId: string, externalId: string) {
  const earned = listMemberBadges(db, projectId, externalId).badges
    .map(({ earnedAt, ...badge }) => ({ ...badge, awardedAt: earnedAt }));
  const held = new Set(earned.map((badge) => badge.badgeId));
  const available = liveItems(db, badges, projectId)
    .filter((badge) => !held.has(badge.id))
    .map(({ id, name, description, imageUrl, rarity }) => ({ id, name, description, imageUrl, rarity }));
  return { earned, available };
}

/**
 * Gives the member the badge unless they hold it already (the unique index makes "at most once"
 * hold under any concurrency). Emits badge.awarded when it was given. Returns when it was awarded,
 * or null when the member already held it.
 */
export function grantBadge(db: Db, member: MemberRow, badge: Badge, source: BadgeSource, now: Date): string | null {
  const awardedAt = now.toISOString();
  const { changes } = stmt(db, `INSERT OR IGNORE INTO member_badges (public_id, project_id, member_id, badge_id, source, awarded_at)
    VALUES (?, ?, ?, ?, ?, ?)`).run(newId('mbg'), member.project_id, member.id, badge.id, source, awardedAt);
  if (changes === 0) return null;
  emit(db, member.project_id, 'badge.awarded', {
    memberId: member.public_id, externalId: member.external_id, badgeId: badge.id, badgeName: badge.name, rarity: badge.rarity, source, awardedAt,
  }, now);
  return awardedAt;
}

function requireLiveBadge(db: Db, projectId: string, badgeId: string): Badge {
  const badge = getItem(db, badges, projectId, badgeId);
  if (badge.archivedAt !== null) throw forbidden(`The badge "${badgeId}" is archived and can no longer be awarded.`);
  return badge;
}

/** POST /members/{externalId}/badges: 409 when the member already holds it. */
export function awardBadge(db: Db, projectId: string, externalId: string, badgeId: string, now: Date) {
  return atomically(db, () => {
    const member = requireMember(db, projectId, externalId);
    const badge = requireLiveBadge(db, projectId, badgeId);
    const awardedAt = grantBadge(db, member, badge, 'manual', now);
    if (awardedAt === null) throw conflict(`The member "${externalId}" already holds the badge "${badgeId}".`);
    const { id, name, description, imageUrl, rarity } = badge;
    return { success: true, badge: { id, name, description, imageUrl, rarity, awardedAt } };
  });
}

/** DELETE /members/{externalId}/badges: 404 when the member does not hold it. */
export function removeBadge(db: Db, projectId: string, externalId: string, badgeId: string) {
  return atomically(db, () => {
    const member = requireMember(db, projectId, externalId);
    const { changes } = stmt(db, 'DELETE FROM member_badges WHERE member_id = ? AND badge_id = ?').run(member.id, badgeId);
    if (changes === 0) throw notFound(`The member "${externalId}" does not hold a badge with id "${badgeId}".`);
    return { success: true, removed: badgeId };
  });
}

const completedQuestCount = (db: Db, memberId: number) =>
  stmt<number>(db, "SELECT count(*) FROM quest_progress WHERE member_id = ? AND status = 'COMPLETED'").pluck().get(memberId)!;

function counter(db: Db, member: MemberRow, criterion: BadgeCriterion): number | undefined {
  if (criterion === 'totalPointsEarned') return member.total_points_earned;
  if (criterion === 'currentStreak') return member.current_streak;
  if (criterion === 'questsCompleted') return completedQuestCount(db, member.id);
  return undefined;
}

/**
 * Awards every live badge whose automatic criterion of this kind the member now meets and does
 * not yet hold. Call it in the transaction that changed the counter: postToLedger() does for
 * totalPointsEarned, quest completion for questsCompleted; check-ins (currentStreak) and
 * referral conversions (referralsConverted) call it too, passing `value` where the member row
 * does not hold the counter. Costs nothing beyond a cached read when no threshold is reached.
 */
export function evaluateBadgeCriteria(db: Db, member: MemberRow, criterion: BadgeCriterion, now: Date, value?: number): void {
  const candidates = hotCatalog(db, member.project_id).criteriaBadges.filter((badge) => badge.criteria!.type === criterion);
  if (candidates.length === 0) return;
  const reached = value ?? counter(db, member, criterion);
  if (reached === undefined) return;
  for (const badge of candidates) {
    if (badge.criteria!.threshold <= reached) grantBadge(db, member, badge, 'criteria', now);
  }
}
