import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { toItem } from '../catalog/catalog-items.ts';
import { promoCodes } from '../catalog/promo-code-kind.ts';
import { conflict, forbidden, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { memberById, requireMember, toMember, type Member } from '../members/members.ts';
import { earn } from '../multipliers/earn.ts';
import { emit } from '../events/record-event.ts';
import { claimReward, requireReward, type Claim } from '../rewards/claims.ts';

export interface Redemption {
  id: string;
  code: string;
  rewardType: 'POINTS' | 'REWARD';
  pointsAwarded: number;
  /** REWARD codes: the claim the code gave (its reward, coupon code or digital content); null for POINTS codes. */
  reward: Claim | null;
  redeemedAt: string;
}

/**
 * POST /promo-codes/redeem (and the widget's POST /promo-code). The code matches ignoring case.
 * POINTS codes pay through earn() (source `promo`, multipliers apply); REWARD codes claim their
 * reward without spending points (the reward's own availability, level, stock and per-member
 * rules still apply). One redemption per member (409), maxRedemptions in total (409), expired
 * (403); unknown, switched off or not yet started: the same 404.
 */
export function redeemPromoCode(db: Db, projectId: string, input: { externalId: string; code: string }, actor: string, now: Date):
  { redemption: Redemption; member: Member; pointsAwarded: number; basePoints: number; multiplier: number; message: string } {
  return atomically(db, () => {
    // The member first: whether a code exists must never depend on who asks.
    const member = requireMember(db, projectId, input.externalId);
    const at = now.toISOString();
    const row = stmt<Record<string, unknown>>(db, 'SELECT * FROM promo_codes WHERE project_id = ? AND code = ? COLLATE NOCASE AND archived_at IS NULL')
      .get(projectId, input.code.trim());
    const promo = row ? toItem(promoCodes, row) : null;
    // A code switched off or not yet started answers exactly as one that does not exist: it is not
    // public yet, and a different answer would tell a guesser it is there.
    if (!promo || !promo.isActive || (promo.startsAt !== null && at < promo.startsAt)) throw notFound(`No promo code "${input.code}" in this project`);
    if (promo.expiresAt !== null && at >= promo.expiresAt) throw forbidden(`The promo code "${promo.code}" expired at ${promo.expiresAt}.`);
    const count = (sql: string, ...params: unknown[]) => stmt<number>(db, `SELECT count(*) FROM promo_redemptions WHERE promo_code_id = ?${sql}`)
      .pluck().get(promo.id, ...params)!;
    if (count(' AND member_id = ?', member.id) > 0) throw conflict(`The member "${member.external_id}" has already redeemed the promo code "${promo.code}".`);
    if (promo.maxRedemptions !== null && count('') >= promo.maxRedemptions) {
      throw conflict(`The promo code "${promo.code}" has been used up (${promo.maxRedemptions} redemptions).`);
    }
    const publicId = newId('prd');
    let pointsAwarded = 0;
    let basePoints = 0;
    let multiplier = 1;
    let claim: Claim | null = null;
    if (promo.rewardType === 'POINTS') {
      ({ pointsAwarded, basePoints, multiplier } = earn(db, member, {
        basePoints: promo.points!, source: 'promo', actor, description: `Promo code ${promo.code}`, referenceId: promo.id,
        metadata: { promoCodeId: promo.id, redemptionId: publicId },
      }, now));
    } else {
      claim = claimReward(db, requireReward(db, projectId, promo.rewardId!), member, { spend: false, via: 'promo', actor }, now).claim;
    }
    const claimRow = claim && stmt<number>(db, 'SELECT id FROM reward_claims WHERE public_id = ?').pluck().get(claim.id)!;
    stmt(db, `INSERT INTO promo_redemptions (public_id, project_id, promo_code_id, member_id, points_awarded, claim_id, redeemed_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)`).run(publicId, projectId, promo.id, member.id, pointsAwarded, claimRow, at);
    emit(db, projectId, 'promo.redeemed', {
      memberId: member.public_id, externalId: member.external_id, promoCodeId: promo.id, code: promo.code, rewardType: promo.rewardType,
      pointsAwarded, rewardId: promo.rewardId, claimId: claim?.id ?? null, redemptionId: publicId,
    }, now);
    const message = claim ? `Promo code applied: ${claim.reward.name} is yours.` : `Promo code applied: ${pointsAwarded} points added.`;
    return {
      redemption: { id: publicId, code: promo.code, rewardType: promo.rewardType, pointsAwarded, reward: claim, redeemedAt: at },
      member: toMember(db, memberById(db, member.id)),
      pointsAwarded,
      basePoints,
      multiplier,
      message,
    };
  });
}
