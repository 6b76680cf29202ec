import * as v from 'valibot';
import { EVENT_TYPES } from '../../domain/events/record-event.ts';
import {
  bool, checkinResult, checkinStatus, claim, deleted, int, jsonObject, leaderboardEntry, member, memberBadge, memberRank, nullable, num,
  pagination, period, playResult, referralStats, rewardView, shareResult, shareStatus, str, success, transaction,
} from './common.ts';

// The server API's answers, by route (src/http/v1/).

/** `next`: the cursor of the page after this one, when there is one (listings without `search`). */
export const memberList = v.object({ members: v.array(member), pagination: v.object({ ...pagination.entries, next: v.optional(str) }) });

/** POST /members/import: a report per row, in the order sent, and the batch's counts. */
export const memberImport = v.pipe(v.object({
  batchId: str,
  importKey: str,
  mode: v.picklist(['add', 'reset']),
  rows: v.array(v.union([
    v.object({ index: int, outcome: v.picklist(['new', 'updated', 'unchanged']), memberId: str, externalId: str, points: int, pending: int, balance: int,
      warnings: v.array(str) }),
    v.object({ index: int, outcome: v.literal('error'), error: str, externalId: nullable(str) }),
  ])),
  summary: v.object({ created: int, updated: int, unchanged: int, skipped: int, pointsImported: int, pendingImported: int }),
}), v.title('MemberImport'));

export const memberExport = v.object({
  exportedAt: str,
  member: v.object({ ...member.pipe[0].entries, phone: nullable(str), dateOfBirth: nullable(str), updatedAt: str }),
  transactions: v.array(transaction),
  badges: v.array(memberBadge),
  quests: v.array(v.object({
    id: str, questId: str, questName: str, progress: int, targetCount: int, status: str, pointsAwarded: nullable(int), completedAt: nullable(str),
    metadata: v.unknown(), createdAt: str,
  })),
});

export const award = v.pipe(v.object({ transaction, member }), v.title('Award'));

export const pointsSummary = v.object({ points: int, totalEarned: int, totalPointsEarned: int, pendingPoints: int, transactions: v.optional(v.array(transaction)) });

export const memberBadges = v.object({ badges: v.array(memberBadge) });
export const badgeAwarded = v.object({
  success, badge: v.object({ id: str, name: str, description: nullable(str), imageUrl: nullable(str), rarity: str, awardedAt: str }),
});
export const badgeRemoved = v.object({ success, removed: str });

export { checkinResult, checkinStatus, playResult };

export const leaderboard = v.object({ period, entries: v.array(leaderboardEntry) });
export const memberRanks = v.object({
  externalId: str, name: nullable(str), ranks: v.object({ all: v.optional(memberRank), month: v.optional(memberRank), week: v.optional(memberRank), day: v.optional(memberRank) }),
});

export const redemption = v.object({
  id: str, code: str, rewardType: v.picklist(['POINTS', 'REWARD']), pointsAwarded: int, reward: nullable(claim), redeemedAt: str,
});
export const promoRedeemed = v.object({ redemption, member });

const questCompletion = v.object({
  id: str, questId: str, questName: str, pointsAwarded: int, basePoints: int, multiplier: num, multiplierEventName: nullable(str), completedAt: str,
});
export const eventTracked = v.object({ tracked: v.literal(true), event: str, externalId: str, questsTriggered: int, questsCompleted: v.array(questCompletion) });
export const questProgressed = v.object({
  completion: v.object({ id: str, progress: int, targetCount: int, progressPercentage: num, status: v.picklist(['IN_PROGRESS', 'COMPLETED']) }),
  member,
  completed: bool,
});
export const questCompleted = v.object({ completion: questCompletion, member });

const referral = v.object({
  id: str, referralCode: str, referrerExternalId: str, refereeExternalId: str, status: v.picklist(['PENDING', 'CONVERTED']), refereePoints: int,
  referrerPoints: int, referrerRewarded: bool, createdAt: str, convertedAt: nullable(str),
});
export const referralApplied = v.object({ success, referral, member, rewardsAwarded: v.object({ referrer: int, referee: int }) });
export const referralStatsAnswer = v.object({
  ...referralStats.entries,
  limits: v.object({ perMonth: nullable(int), total: nullable(int), usedThisMonth: int, usedTotal: int }),
});

export const rewardRedeemed = v.object({ success, claim, member });
export const memberRewards = v.object({ rewards: v.array(rewardView) });
export const memberClaims = v.object({ claims: v.array(claim) });

export { shareResult, shareStatus };

export const webhook = v.pipe(v.object({
  id: str,
  url: str,
  events: v.array(v.picklist(EVENT_TYPES)),
  isActive: bool,
  state: v.picklist(['active', 'failing', 'disabled', 'paused']),
  createdAt: str,
  failingSince: nullable(str),
  failedAt: nullable(str),
  lastError: nullable(str),
}), v.title('Webhook'));
export const webhookList = v.object({ webhooks: v.array(webhook) });
export const webhookCreated = v.object({ ...webhook.pipe[0].entries, secret: str });
export const webhookUpdated = v.object({
  ...webhook.pipe[0].entries,
  failedWhileDown: v.optional(v.object({ since: str, deliveries: int, resent: int })),
});
export const webhookSecretRotated = v.object({ id: str, secret: str });
export const webhookTested = v.object({ success: bool, statusCode: nullable(int), durationMs: num, error: nullable(str) });

export { deleted, jsonObject, member };
