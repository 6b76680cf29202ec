import type { Db } from '../src/db/connection.ts';
import { findItemByKey } from '../src/domain/catalog/catalog-items.ts';
import { quests } from '../src/domain/catalog/quest-kind.ts';
import { DAY_MS } from '../src/shared/clock.ts';
import { findMember, upsertMember } from '../src/domain/members/members.ts';
import { completeQuest, trackEvent } from '../src/domain/quests/quest-progress.ts';

/**
 * A demo catalog showing every feature: all quest modes, every reward and game type, levels,
 * badges with each criterion, a running 2x multiplier and promo codes. Dates are whole UTC days
 * around `now`, so seeding again on the same day changes nothing.
 */
export function demoCatalog(now: Date) {
  const today = Math.floor(now.getTime() / DAY_MS) * DAY_MS;
  const day = (offset: number) => new Date(today + offset * DAY_MS).toISOString();
  return {
    // No referral URL: share links are this server's /r/CODE landing page, which works as it is.
    project: { welcomeBonus: 50 },
    levels: [
      { key: 'newcomer', level: 0, name: 'Newcomer', minTotalPointsEarned: 0 },
      { key: 'bronze', level: 1, name: 'Bronze', minTotalPointsEarned: 100 },
      { key: 'silver', level: 2, name: 'Silver', minTotalPointsEarned: 500 },
      { key: 'gold', level: 3, name: 'Gold', minTotalPointsEarned: 1500 },
      { key: 'platinum', level: 4, name: 'Platinum', minTotalPointsEarned: 5000 },
    ],
    badges: [
      { key: 'first-steps', name: 'First steps', description: 'Completed a first quest', rarity: 'COMMON', criteria: { type: 'questsCompleted', threshold: 1 } },
      { key: 'reviewer', name: 'Reviewer', description: 'Wrote a product review', rarity: 'UNCOMMON' },
      { key: 'big-spender', name: 'Big spender', description: 'Earned 1,000 points', rarity: 'RARE', criteria: { type: 'totalPointsEarned', threshold: 1000 } },
      { key: 'quest-master', name: 'Quest master', description: 'Completed 5 quests', rarity: 'EPIC', criteria: { type: 'questsCompleted', threshold: 5 } },
      { key: 'on-fire', name: 'On fire', description: 'Checked in 7 days in a row', rarity: 'RARE', criteria: { type: 'currentStreak', threshold: 7 } },
      { key: 'ambassador', name: 'Ambassador', description: 'Brought 3 friends', rarity: 'LEGENDARY', criteria: { type: 'referralsConverted', threshold: 3 } },
    ],
    rewards: [
      { key: 'ten-percent', name: '10% off your next order', type: 'COUPON', pointsCost: 500, discountConfig: { type: 'PERCENTAGE', value: 10 } },
      { key: 'five-off', name: '$5 off', type: 'COUPON', pointsCost: 400, discountConfig: { type: 'FIXED_CART', value: 5 }, maxClaimsPerUser: 3 },
      { key: 'tote', name: 'Canvas tote bag', type: 'PHYSICAL', pointsCost: 1500, stock: 50, minLevel: 2 },
      { key: 'wallpapers', name: 'Wallpaper pack', type: 'DIGITAL', pointsCost: 200, digitalContent: 'https://shop.example/downloads/wallpapers.zip' },
      { key: 'trip-raffle', name: 'Win a weekend trip', type: 'RAFFLE', pointsCost: 100, maxClaimsPerUser: 10, expiresAt: day(60) },
      { key: 'donation', name: 'Plant a tree', type: 'CUSTOM', pointsCost: 300 },
    ],
    quests: [
      { key: 'first-purchase', name: 'Make your first purchase', completionMode: 'AUTOMATED', action: 'purchase', points: 100 },
      { key: 'loyal-shopper', name: 'Make 5 purchases', completionMode: 'AUTOMATED', action: 'purchase', targetCount: 5, points: 500 },
      { key: 'daily-visit', name: 'Visit 3 pages today', completionMode: 'AUTOMATED', action: 'page_view', targetCount: 3, points: 10,
        repeatable: true, cooldownMinutes: 1440 },
      { key: 'write-review', name: 'Write a review', completionMode: 'MANUAL', points: 50, badgeKey: 'reviewer' },
      { key: 'follow-us', name: 'Follow us on Instagram', completionMode: 'SELF_REPORT', points: 25 },
      { key: 'spring-challenge', name: 'Spring challenge: share 3 times', completionMode: 'AUTOMATED', action: 'share', targetCount: 3,
        points: 150, startsAt: day(-1), endsAt: day(30) },
    ],
    games: [
      { key: 'wheel', name: 'Spin the wheel', type: 'SPIN_WHEEL', pointsCost: 20, dailyPlaysLimit: 3,
        prizes: [{ name: '10 points', value: 10, weight: 50 }, { name: '50 points', value: 50, weight: 15 }, { name: 'Try again', value: 0, weight: 35 }] },
      { key: 'slots', name: 'Lucky slots', type: 'SLOTS', pointsCost: 10, cooldownMinutes: 5,
        prizes: [{ name: 'Jackpot', value: 500, weight: 1 }, { name: 'Cherries', value: 20, weight: 30 }, { name: 'Nothing', value: 0, weight: 69 }] },
      { key: 'dice', name: 'Roll the dice', type: 'DICE', maxPlaysPerUser: 10,
        prizes: [1, 2, 3, 4, 5, 6].map((n) => ({ name: `${n * 5} points`, value: n * 5, weight: 1 })) },
      { key: 'scratch', name: 'Scratch card', type: 'SCRATCH_CARD', pointsCost: 5, dailyPlaysLimit: 1,
        prizes: [{ name: '100 points', value: 100, weight: 5 }, { name: '5 points', value: 5, weight: 95 }] },
      { key: 'checkin', name: 'Daily check-in', type: 'DAILY_CHECKIN', checkinPoints: 10, streakBonuses: [{ day: 3, bonus: 20 }, { day: 7, bonus: 100 }] },
    ],
    promoCodes: [
      { key: 'welcome', code: 'WELCOME100', rewardType: 'POINTS', points: 100, description: 'For new members' },
      { key: 'free-tote', code: 'FREETOTE', rewardType: 'REWARD', rewardKey: 'tote', maxRedemptions: 10 },
      { key: 'spring', code: 'SPRING25', rewardType: 'POINTS', points: 25, startsAt: day(-1), expiresAt: day(30), maxRedemptions: 1000 },
    ],
    multipliers: [
      { key: 'double-week', name: 'Double points month', multiplier: 2, startsAt: day(-1), endsAt: day(30) },
      { key: 'games-weekend', name: 'Triple game prizes', multiplier: 3, startsAt: day(60), endsAt: day(62), sources: ['game'] },
    ],
  };
}

/**
 * Demo members with some history, made through the same functions the API uses. Members that
 * already exist are left alone, so seeding the demo twice does not double their history.
 */
export function seedDemoMembers(db: Db, projectId: string, now: Date): number {
  const questId = (key: string) => findItemByKey(db, quests, projectId, key)!.id;
  const people: [string, string, string, (externalId: string) => void][] = [
    ['alice', 'Alice Martin', 'alice@example.com', (id) => {
      for (let i = 0; i < 5; i++) trackEvent(db, projectId, { externalId: id, event: 'purchase', properties: { orderId: `A-${i + 1}` } }, 'cli', now);
      completeQuest(db, projectId, questId('write-review'), { externalId: id }, 'cli', now);
    }],
    ['bob', 'Bob Chen', 'bob@example.com', (id) => {
      trackEvent(db, projectId, { externalId: id, event: 'purchase' }, 'cli', now);
      for (let i = 0; i < 2; i++) trackEvent(db, projectId, { externalId: id, event: 'page_view' }, 'cli', now);
    }],
    ['carol', 'Carol Diaz', 'carol@example.com', () => undefined],
  ];
  let created = 0;
  for (const [externalId, name, email, history] of people) {
    if (findMember(db, projectId, externalId)) continue;
    upsertMember(db, projectId, { externalId, name, email }, now);
    history(externalId);
    created++;
  }
  return created;
}
