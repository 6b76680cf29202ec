import type { Db } from '../../db/connection.ts';
import { redeemPromoCode } from '../promo/redeem-promo.ts';
import { referralStats } from '../referrals/referrals.ts';
import { redeemReward } from '../rewards/claims.ts';

// A member's own actions from the widget, answered with what a shopper may see: the balance, not
// the operator's view of the member.

/** Claims a reward; the coupon code, if any, is in the claim. */
export function claimWidgetReward(db: Db, projectId: string, externalId: string, rewardId: string, now: Date) {
  const { success, claim, member } = redeemReward(db, projectId, rewardId, externalId, 'widget', now);
  return { success, claim, member: { points: member.points } };
}

/** Promo-code entry: `{success, pointsAwarded, basePoints, multiplier, message}`, plus the claim a REWARD code gave and the new balance. */
export function redeemWidgetPromo(db: Db, projectId: string, externalId: string, code: string, now: Date) {
  const { redemption, member, pointsAwarded, basePoints, multiplier, message } = redeemPromoCode(db, projectId, { externalId, code }, 'widget', now);
  return { success: true, pointsAwarded, basePoints, multiplier, message, claim: redemption.reward, member: { points: member.points } };
}

/** The member's referral code, link and results; it may create the code. The referrer limits are the operator's business. */
export function widgetReferral(db: Db, projectId: string, externalId: string, publicUrl: string, now: Date) {
  const { limits: _limits, ...view } = referralStats(db, projectId, externalId, publicUrl, now);
  return view;
}
