import * as v from 'valibot';
import type { EventType } from '../../domain/events/record-event.ts';
import { bool, int, member, nullable, num, str } from './common.ts';

// What an outbound webhook delivers: the envelope and, per event type, its `data`
// (src/domain/*: the emit() calls). The OpenAPI document lists them under `webhooks`.

const memberRef = { memberId: str, externalId: str };
const posting = {
  ...memberRef, newBalance: int, transactionId: str, type: str, source: str, description: nullable(str), referenceId: nullable(str),
};

export const EVENT_DATA: Record<EventType, v.GenericSchema> = {
  'member.created': member,
  'member.updated': member,
  'points.awarded': v.object({ ...posting, pointsAwarded: int }),
  'points.deducted': v.object({ ...posting, pointsDeducted: int }),
  'badge.awarded': v.object({ ...memberRef, badgeId: str, badgeName: str, rarity: str, source: str, awardedAt: str }),
  'quest.completed': v.object({
    ...memberRef, id: str, questId: str, questName: str, pointsAwarded: int, basePoints: int, multiplier: num, multiplierEventName: nullable(str),
    completedAt: str, completionId: str, multiplierEventId: nullable(str), transactionId: nullable(str),
  }),
  'referral.converted': v.object({
    referralId: str, referralCode: str, referrerExternalId: str, refereeExternalId: str, referrerPoints: int, referrerRewarded: bool,
  }),
  'promo.redeemed': v.object({
    ...memberRef, promoCodeId: str, code: str, rewardType: str, pointsAwarded: int, rewardId: nullable(str), claimId: nullable(str), redemptionId: str,
  }),
  'reward.redeemed': v.object({
    ...memberRef, rewardId: str, rewardName: str, rewardType: str, pointsSpent: int, claimId: str, couponCode: v.optional(str),
  }),
};

/** The body of a delivery: `signature` is X-Punchcard-Signature's HMAC over the body without it (docs/webhooks.md). */
export const eventEnvelope = (type: EventType) => v.object({
  id: str,
  type: v.literal(type),
  timestamp: str,
  signature: str,
  data: EVENT_DATA[type],
});
