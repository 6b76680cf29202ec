// The widget's keys and English strings. The script carries no words: init (and the guest view)
// answers with the strings of the visitor's language by key (src/domain/widget/widget-language.ts,
// from translations.ts). Each language is one "|"-separated line in the order of KEYS, so the keys
// are written only once.

export const KEYS = [
  'open', 'close', 'points', 'balance', 'earned', 'streak', 'history', 'noHistory', 'more',
  'rewards', 'quests', 'badges', 'games', 'checkin', 'referrals', 'promo', 'share', 'leaderboard',
  'claim', 'claimed', 'copy', 'copied', 'coupon', 'needMore', 'soldOut', 'levelReq', 'limit',
  'cost', 'progress', 'done', 'earnedBadges', 'lockedBadges', 'play', 'free', 'won', 'noPrize',
  'checkinBtn', 'checkedIn', 'todayReward', 'nextBonus', 'yourLink', 'newCode', 'converted', 'pending', 'referralDeal',
  'promoLabel', 'redeem', 'shareFor', 'sharesLeft', 'rank', 'you', 'loading', 'error', 'retry', 'empty',
  'tryLater', 'welcome', 'welcomeBonus', 'email', 'tEARNED', 'tDEDUCTED', 'tREFUNDED', 'tabs',
  // issue 25 (data): errors, My rewards, limits, history entries, rarities, guest view
  'offline', 'expired', 'unavailable', 'notFound', 'conflict', 'noPoints', 'myRewards', 'openLink', 'dailyDone', 'openAt', 'promoOk', 'drawOn', 'drawnOn', 's_COMPLETED', 's_PENDING', 's_SHIPPED', 's_DELIVERED', 's_ENTERED', 's_WON', 's_LOST', 'r_COMMON', 'r_UNCOMMON', 'r_RARE', 'r_EPIC', 'r_LEGENDARY', 'h_quest_completed', 'h_reward_claimed', 'h_game_won', 'h_game_played', 'h_checkin', 'h_checkin_bonus', 'h_shared', 'h_promo_code', 'h_referral_converted', 'h_referral_welcome', 'h_points_expired', 'h_points_spent', 'badCode', 'signUp', 'signIn', 'waysToEarn', 'levels',
  // chunks: a panel whose code could not be fetched
  'loadFailed',
  // issue 25 (shopper UI): home, navigation, quests you can act on, referral
  'back', 'hello', 'toNext', 'yourLevel', 'boost', 'waysRedeem', 'canAfford', 'upTo', 'endsOn', 'steps', 'goThere', 'didIt', 'shareLink', 'newCodeAsk', 'confirm', 'cancel',
  // issue 27: the Discord section (link the member's community account)
  'discord', 'discordWhy', 'discordLink', 'discordAs',
  // a claim asks before it spends; games say what they give and its odds
  'spendAsk', 'prizes', 'odds',
] as const;

export type Key = (typeof KEYS)[number];

/** The widget languages, in the codes the widget settings use. */
export const LANGUAGES = ['en', 'es', 'fr', 'de', 'it', 'pt', 'nl', 'pl', 'ja', 'ko', 'zh-CN', 'ar', 'he'];

export const EN =
  'Open rewards|Close|points|Your balance|Lifetime earned|Day streak|History|No activity yet|Load more|Rewards|Quests|Badges|Games|Check-in|Refer a friend|Promo code|Share|Leaderboard|Claim|Claimed!|Copy|Copied!|Your coupon code|{n} more points needed|Sold out|Requires level {n}|Limit reached|{n} points|{a} of {b}|Completed|Earned|To unlock|Play|Free|You won {x}!|No prize this time|Check in|Checked in today|Today: +{n}|+{n} bonus in {d} days|Your referral link|New code|Joined|Pending|You get {a} points, your friend gets {b}|Promo code|Redeem|+{n} points per share|{a} of {b} shares today|Your rank: #{n}|You|Loading…|Something went wrong|Retry|Nothing here yet|Too many tries; try again later|Welcome! +{n} points|Welcome bonus|Email|Points earned|Adjustment|Refund|Sections|You\'re offline. Last known balance: {n} points.|Your session has ended. Reload the page to continue.|Not available right now|Not found|Already done|Not enough points|My rewards|Open|Daily limit reached. Opens again {d}|Opens again {d}|Code applied: +{n} points|Draw after {d}|Drawn {d}|Ready to use|Being prepared|Shipped|Delivered|Entered in the draw|You won!|Not drawn this time|Common|Uncommon|Rare|Epic|Legendary|Quest completed: {q}|Reward claimed: {r}|Won {p} in {g}|Played {g}|Daily check-in (day {d})|Streak bonus (day {d})|Shared on {p}|Promo code {c}|A friend joined|Referral welcome reward|{p} points expired|Points spent|This code is not valid|Join now|Sign in|Ways to earn|Levels|This section could not be loaded. Check your connection.|Back|Hello, {n}!|{n} more points to {x}|Your level: {x}|×{n} points: {x}, until {d}|Ways to redeem|Available now|up to {n}|Ends {d}|{a} of {b} steps done|Go there|I did it|Send your link|Make a new code? Your current link will stop working.|Yes, new code|Cancel|Discord|Earn points for your activity in our Discord.|Link your Discord|Linked as {n}|Spend {n} points on {x}?|What you can win|{p}% chance';
