// The widget's English strings, built into the script; the other ten languages are served by the
// Punchcard server at /widget/strings/<language>.json (translations.ts), fetched only when shown.
// Each language is one "|"-separated line in the order of KEYS, so the keys are written only once.

export const KEYS = [
  'open', 'close', 'points', 'balance', 'earned', 'streak', 'history', 'noHistory', 'more',
  'home', 'rewards', 'quests', 'badges', 'games', 'checkin', 'referrals', 'promo', 'share', 'leaderboard',
  'claim', 'claimed', 'copy', 'copied', 'coupon', 'needMore', 'soldOut', 'levelReq', 'limit',
  'cost', 'progress', 'done', 'earnedBadges', 'lockedBadges', 'play', 'free', 'won', 'noPrize',
  'checkinBtn', 'checkedIn', 'todayReward', 'nextBonus', 'yourLink', 'newCode', 'converted', 'pending', 'referralDeal',
  'promoLabel', 'redeem', 'shareFor', 'sharesLeft', 'rank', 'you', 'loading', 'error', 'retry', 'empty',
  'tryLater', 'welcome', 'welcomeBonus', 'email', 'tEARNED', 'tREDEEMED', 'tSPENT', 'tDEDUCTED', 'tREFUNDED', 'tEXPIRED', 'tabs',
] as const;

export type Key = (typeof KEYS)[number];

/** The widget languages, in the codes the widget settings use. */
export const LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt', 'nl', 'pl', 'ja', 'ko', 'zh-CN'];

export const EN =
  'Open rewards|Close|points|Your balance|Lifetime earned|Day streak|History|No activity yet|Load more|Points|Rewards|Quests|Badges|Games|Check-in|Refer a friend|Promo code|Share|Leaderboard|Claim|Claimed!|Copy|Copied!|Your coupon code|{n} more points needed|Sold out|Requires level {n}|Limit reached|{n} points|{a} of {b}|Completed|Earned|To unlock|Play|Free|You won {x}!|No prize this time|Check in|Checked in today|Today: +{n}|+{n} bonus in {d} days|Your referral link|New code|Joined|Pending|You get {a} points, your friend gets {b}|Promo code|Redeem|+{n} points per share|{a} of {b} shares today|Your rank: #{n}|You|Loading…|Something went wrong|Retry|Nothing here yet|Too many tries; try again later|Welcome! +{n} points|Welcome bonus|Email|Points earned|Reward claimed|Game played|Adjustment|Refund|Points expired|Sections';
