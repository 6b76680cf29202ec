import * as v from 'valibot';
import {
  balance, bool, checkinResult, checkinStatus, claim, earning, int, leaderboardEntry, memberRank, nullable, num, pagination, period, playResult,
  referralCode, referralStats, rewardView, shareResult, shareStatus, str, success,
} from './common.ts';
import { widgetSettings } from './project.ts';

// The widget API's answers, by route (src/http/widget/): what a shopper may see.

const availability = v.object({ reason: nullable(v.picklist(['max', 'daily', 'cooldown'])), availableAt: nullable(str) });

const widgetMember = v.object({
  id: str, externalId: str, name: nullable(str), email: nullable(str), points: int, totalPointsEarned: int, currentStreak: int, longestStreak: int,
});

const level = v.object({
  level: int, name: nullable(str), minTotalPointsEarned: int, next: nullable(v.object({ level: int, name: str, minTotalPointsEarned: int })),
});

/** The strings of the language picked from the visitor's, when init or the guest view is given `languages`. */
const language = { language: v.optional(str), strings: v.optional(v.record(str, str)) };

export const init = v.pipe(v.object({
  project: v.object({ name: str, widgetSettings }),
  member: widgetMember,
  activeMultipliers: v.array(v.object({ name: str, multiplier: num, endsAt: str, sources: nullable(v.array(str)) })),
  welcomeBonus: int,
  level,
  session: v.optional(v.object({ token: str, expiresAt: str })),
  ...language,
}), v.title('WidgetInit'));

export const profile = v.object({ ...widgetMember.entries, avatarUrl: nullable(str), lastCheckinAt: nullable(str), memberSince: str });

export const history = v.object({
  transactions: v.array(v.object({
    id: str, amount: int, balance: int, type: str, source: str, description: nullable(str), referenceId: nullable(str), createdAt: str,
    entry: v.object({ kind: str, params: v.record(str, v.union([str, num])) }),
  })),
  pagination,
});

export const quests = v.object({
  quests: v.array(v.object({
    id: str, name: str, description: nullable(str), imageUrl: nullable(str), linkUrl: nullable(str), completionMode: str, points: int,
    targetCount: int, repeatable: bool, endsAt: nullable(str), progress: int, status: nullable(v.picklist(['IN_PROGRESS', 'COMPLETED'])), multiplier: num,
  })),
});

export const questReported = v.object({
  progress: v.object({ id: str, progress: int, targetCount: int, progressPercentage: num, status: v.picklist(['IN_PROGRESS', 'COMPLETED']) }),
  completed: bool,
  ...earning,
  member: balance,
});

const badge = { id: str, name: str, description: nullable(str), imageUrl: nullable(str), rarity: str };
export const badges = v.object({
  earned: v.array(v.object({ ...badge, badgeId: str, awardedAt: str })),
  available: v.array(v.object(badge)),
});

export const rewards = v.object({ rewards: v.array(rewardView) });
export const rewardClaimed = v.object({ success, claim, member: balance });

export const claims = v.object({
  claims: v.array(v.object({
    id: str,
    reward: v.object({ id: str, name: str, imageUrl: nullable(str), type: str }),
    pointsSpent: int,
    status: str,
    couponCode: nullable(str),
    digitalContent: nullable(str),
    raffle: nullable(v.object({ closesAt: nullable(str), drawnAt: nullable(str) })),
    createdAt: str,
    updatedAt: str,
  })),
});

/** `weight` and `odds` (weight / total weight) are null where the game does not show its odds (`showOdds` false). */
const prizeShown = v.object({ name: str, value: int, weight: nullable(int), odds: nullable(num) });

export const games = v.object({
  games: v.array(v.object({
    id: str, name: str, type: str, pointsCost: int, prizes: v.array(prizeShown), showOdds: bool, multiplier: num, availability: nullable(availability),
  })),
});
export const checkin = v.object({ ...checkinStatus.entries, multiplier: num, availability });
export { checkinResult, playResult, shareResult };

export const promoRedeemed = v.object({ success, ...earning, message: str, claim: nullable(claim), member: balance });

export const referral = referralStats;
export const referralCodeAnswer = v.object(referralCode);

export const share = v.object({ ...shareStatus.entries, multiplier: num, availability });

export const leaderboard = v.object({
  period,
  entries: v.array(v.object({ rank: leaderboardEntry.entries.rank, name: nullable(str), points: int, isMember: bool })),
  member: memberRank,
});

export const guest = v.pipe(v.object({
  project: v.object({ name: str, widgetSettings }),
  signUpUrl: nullable(str),
  signInUrl: nullable(str),
  welcomeBonus: int,
  levels: v.array(v.object({ level: int, name: str, minTotalPointsEarned: int })),
  rewards: v.array(v.object({ id: str, name: str, description: nullable(str), imageUrl: nullable(str), type: str, pointsCost: int, minLevel: int })),
  waysToEarn: v.object({
    quests: v.array(v.object({ id: str, name: str, description: nullable(str), points: int, endsAt: nullable(str) })),
    games: v.array(v.object({ id: str, name: str, type: str, pointsCost: int })),
    checkin: nullable(v.object({ points: int })),
    share: nullable(v.object({ pointsPerShare: int, maxSharesPerDay: int })),
    referral: nullable(v.object({ referrerReward: int, refereeReward: int })),
  }),
  activeMultipliers: v.array(v.object({ name: str, multiplier: num, endsAt: str })),
  ...language,
}), v.title('GuestView'));
