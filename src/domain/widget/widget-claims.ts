import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { memberClaims, requireReward, type Claim } from '../rewards/claims.ts';

/** A claim as "My rewards" shows it: what the member keeps from it, without operator fields. */
export interface WidgetClaim {
  id: string;
  reward: { id: string; name: string; imageUrl: string | null; type: Claim['reward']['type'] };
  pointsSpent: number;
  /** COMPLETED; PENDING → SHIPPED → DELIVERED (physical); ENTERED → WON | LOST (raffle). */
  status: Claim['status'];
  couponCode: string | null;
  /** DIGITAL rewards: what the reward gives (often a download link). */
  digitalContent: string | null;
  /** RAFFLE entries: when entries close (the reward's expiry; null = not set) and when it was drawn. */
  raffle: { closesAt: string | null; drawnAt: string | null } | null;
  createdAt: string;
  updatedAt: string;
}

/** The member's claims, newest first (at most `limit`). */
export function widgetClaims(db: Db, projectId: string, externalId: string, limit: number): { claims: WidgetClaim[] } {
  const drawnAt = (rewardId: string) => stmt<string | null>(db, 'SELECT drawn_at FROM rewards WHERE id = ?').pluck().get(rewardId) ?? null;
  return {
    claims: memberClaims(db, projectId, externalId).claims.slice(0, limit).map((claim) => ({
      id: claim.id,
      reward: { id: claim.reward.id, name: claim.reward.name, imageUrl: claim.reward.imageUrl, type: claim.reward.type },
      pointsSpent: claim.pointsSpent,
      status: claim.status,
      couponCode: claim.couponCode ?? null,
      digitalContent: claim.digitalContent ?? null,
      raffle: claim.reward.type === 'RAFFLE'
        ? { closesAt: requireReward(db, projectId, claim.reward.id).expiresAt, drawnAt: drawnAt(claim.reward.id) }
        : null,
      createdAt: claim.createdAt,
      updatedAt: claim.updatedAt,
    })),
  };
}
