// What widget/build.ts splits off the main script. Plain data without imports, read by the build
// (on the server) and, as types only, by the widget.

/**
 * The sections' views, each built into a chunk of its own (widget/<name>.<hash>.js)
 * that the widget fetches the first time the panel is shown: the main script stays within its
 * size budget. The file, under widget/src/, is the chunk's entry: its exports are the chunk's.
 */
export const CHUNKS = {
  rewards: 'panels/rewards.tsx',
  myRewards: 'panels/my-rewards.tsx',
  quests: 'panels/quests.tsx',
  badges: 'panels/badges.tsx',
  games: 'panels/games.tsx',
  checkin: 'panels/checkin.tsx',
  referrals: 'panels/referral.tsx',
  promo: 'panels/promo.tsx',
  share: 'panels/share.tsx',
  leaderboard: 'panels/leaderboard.tsx',
  guest: 'panels/guest.tsx',
  history: 'panels/history.tsx',
  discord: 'panels/discord.tsx',
} as const;

export type ChunkName = keyof typeof CHUNKS;

/**
 * What a chunk takes from the main script instead of carrying its own copy: one Preact (hooks work
 * only with the copy that renders), one Ctx, and the helpers the main script has anyway. By module
 * (as written from widget/src/), the names chunks import from it; exactly these are handed over,
 * so the main script keeps nothing else for them. The build stops when a chunk imports a name not
 * listed here, or would bundle its own copy of a module the main script has.
 */
export const SHARED = {
  'preact/hooks': ['useContext', 'useEffect', 'useRef', 'useState'],
  'preact/jsx-runtime': ['Fragment', 'jsx', 'jsxs'],
  './api.ts': ['ApiError', 'errorKey'],
  './context.ts': ['Ctx'],
  './icons.tsx': ['Icon'],
} as const satisfies Record<string, readonly string[]>;
