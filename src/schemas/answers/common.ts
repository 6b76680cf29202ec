import * as v from 'valibot';
import { PERIODS } from '../../domain/leaderboard/leaderboard.ts';

// The answers' schemas: what the OpenAPI document describes and the contract test checks real
// bodies against. v.object lists the fields an answer always has and lets a later version add
// more (clients must ignore unknown fields); the types say what each field holds.

export const str = v.string();
export const int = v.pipe(v.number(), v.integer());
export const num = v.number();
export const bool = v.boolean();
export const time = v.pipe(v.string(), v.isoTimestamp());
export const nullable = <S extends v.GenericSchema>(schema: S) => v.nullable(schema);
/** A JSON object whose keys are the caller's own (metadata, properties). */
export const jsonObject = v.record(v.string(), v.unknown());

export const pagination = v.object({ total: int, limit: int, offset: int, hasMore: bool });

/** Every error: a short title and a sentence saying what to do. */
export const errorAnswer = v.pipe(
  v.object({ error: str, message: str }),
  v.title('Error'),
  v.examples([{ error: 'Bad Request', message: '"amount" must be a whole number of points.' }]),
);

export const success = v.literal(true);
export const deleted = v.object({ success, deleted: str });

export const member = v.pipe(v.object({
  id: str,
  externalId: str,
  email: nullable(str),
  name: nullable(str),
  avatarUrl: nullable(str),
  points: int,
  totalPointsEarned: int,
  currentStreak: int,
  longestStreak: int,
  metadata: jsonObject,
  createdAt: str,
  level: int,
  levelName: nullable(str),
}), v.title('Member'), v.examples([{
  id: 'mem_2x8Kq1', externalId: 'alice', email: 'alice@example.com', name: 'Alice', avatarUrl: null, points: 150, totalPointsEarned: 150,
  currentStreak: 0, longestStreak: 0, metadata: {}, createdAt: '2026-01-15T12:00:00.000Z', level: 1, levelName: 'Bronze',
}]));

export const TRANSACTION_TYPES = ['EARNED', 'REDEEMED', 'SPENT', 'DEDUCTED', 'REFUNDED', 'EXPIRED', 'IMPORTED'] as const;

export const transaction = v.pipe(v.object({
  id: str,
  amount: int,
  balance: int,
  type: v.picklist(TRANSACTION_TYPES),
  source: str,
  actor: str,
  description: nullable(str),
  referenceId: nullable(str),
  metadata: nullable(jsonObject),
  expiresAt: nullable(str),
  createdAt: str,
}), v.title('Transaction'));

/** What a member's balance now is, in answers that show the shopper only that. */
export const balance = v.object({ points: int });

/** The points an earning gave: base × the multiplier running now. */
export const earning = { pointsAwarded: int, basePoints: int, multiplier: num };

export const rewardType = str;

export const claim = v.pipe(v.object({
  id: str,
  reward: v.object({ id: str, name: str, description: nullable(str), imageUrl: nullable(str), type: rewardType, pointsCost: int }),
  pointsSpent: int,
  status: v.picklist(['COMPLETED', 'PENDING', 'SHIPPED', 'DELIVERED', 'ENTERED', 'WON', 'LOST']),
  couponCode: v.optional(str),
  digitalContent: v.optional(nullable(str)),
  externalId: str,
  createdAt: str,
  updatedAt: str,
}), v.title('Claim'));

export const rewardView = v.object({
  id: str, name: str, description: nullable(str), imageUrl: nullable(str), type: rewardType, pointsCost: int, stockRemaining: nullable(int),
  userClaims: int, maxClaimsPerUser: nullable(int), minLevel: int, levelRequired: bool, canClaim: bool, affordableIn: int,
});

export const memberBadge = v.object({
  id: str, badgeId: str, name: str, description: nullable(str), imageUrl: nullable(str), rarity: str, earnedAt: str,
});

export const checkinStatus = v.object({
  canCheckin: bool, currentStreak: int, longestStreak: int, lastCheckinAt: nullable(str), todayReward: int, streakBonus: nullable(int),
  nextStreakBonus: nullable(v.object({ day: int, bonus: int, daysAway: int })),
});

export const checkinResult = v.object({
  success, pointsAwarded: int, streakBonus: nullable(int), newStreak: int, basePoints: int, multiplier: num, multiplierEventName: nullable(str),
  member: v.object({ points: int, currentStreak: int, longestStreak: int }),
});

export const playResult = v.object({
  success,
  play: v.object({ id: str, gameId: str, gameType: str, playedAt: str }),
  result: v.object({
    prize: v.object({ name: str, value: int }),
    prizeIndex: int,
    pointsAwarded: int,
    basePoints: int,
    multiplier: num,
    multiplierEventName: nullable(str),
    pointsSpent: int,
    animation: v.variant('type', [
      v.object({ type: v.literal('SPIN_WHEEL'), segmentIndex: int, segments: int }),
      v.object({ type: v.literal('SLOTS'), reels: v.tuple([int, int, int]) }),
      v.object({ type: v.literal('DICE'), dice: v.tuple([int, int]) }),
      v.object({ type: v.literal('SCRATCH_CARD'), grid: v.array(nullable(int)) }),
    ]),
  }),
  member: balance,
});

export const shareStatus = v.object({
  platforms: v.array(str), pointsPerShare: int, maxSharesPerDay: int, cooldownMinutes: int, todayShares: int, canShare: bool, cooldownEndsAt: nullable(str),
});

export const shareResult = v.object({ success, ...earning, cooldownEndsAt: nullable(str), todayShares: int, member: balance });

export const referralCode = { referralCode: str, shareLink: str };

export const referralStats = v.object({
  ...referralCode,
  stats: v.object({ totalReferrals: int, pendingReferrals: int, convertedReferrals: int, totalPointsEarned: int }),
  rewards: v.object({ referrerReward: int, refereeReward: int }),
});

export const leaderboardEntry = v.object({ rank: int, externalId: str, name: nullable(str), points: int });
export const memberRank = v.object({ rank: nullable(int), points: int });
export const period = v.picklist(PERIODS);
