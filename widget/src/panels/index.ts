import type { FunctionComponent } from 'preact';
import type { Call } from '../api.ts';
import type { IconName } from '../icons.tsx';
import { lazy } from '../lazy.tsx';
import type { Key } from '../strings.ts';
import type { PanelProps } from './common.tsx';
import type { Game } from './games.tsx';
import type { ShareInfo } from './share.tsx';

/** A section's data: loading, answered, or failed with the message to show. */
export type Loaded = { state: 'ready'; data: unknown } | { state: 'error'; message: string } | { state: 'loading' };

/** A section of the drawer: a button on the home, and a view behind it. */
export interface PanelDef {
  /** Also the translation key of its name. */
  id: Key;
  icon: IconName;
  /** The widget setting that must be on for the panel to show. */
  feature: string;
  /** Fetches the panel's data; null hides the panel (nothing to show). */
  load: (call: Call) => Promise<unknown>;
  view: FunctionComponent<PanelProps<any>>;
}

const get = (path: string) => (call: Call) => call('GET', path);

async function loadCheckin(call: Call) {
  const { games } = await call<{ games: Game[] }>('GET', '/games');
  const game = games.find((g) => g.type === 'DAILY_CHECKIN');
  return game ? { ...(await call<object>('GET', `/games/${encodeURIComponent(game.id)}/checkin`)), gameId: game.id } : null;
}

/** Sharing pays more of a loyalty programme when it shares the member's referral link (when the referral panel is on). */
async function loadShare(call: Call) {
  const [info, referral] = await Promise.all([
    call<ShareInfo>('GET', '/social-share'),
    call<{ shareLink: string }>('GET', '/referral').catch(() => null),
  ]);
  return { ...info, link: referral?.shareLink };
}

const loadDiscord = async (call: Call) => {
  const info = await call<{ available: boolean }>('GET', '/community');
  return info.available ? info : null;
};

// The home is in the main script; every section's view is a chunk (chunks.ts), fetched when first shown. Their data loads with the others' when the drawer opens:
// the home's ways to earn and redeem come from it, and its section buttons appear alike.
export const PANELS: PanelDef[] = [
  { id: 'rewards', icon: 'gift', feature: 'rewards', load: get('/rewards'), view: lazy('rewards', (m: typeof import('./rewards.tsx')) => m.Rewards) },
  { id: 'myRewards', icon: 'ticket', feature: 'rewards', load: get('/claims'), view: lazy('myRewards', (m: typeof import('./my-rewards.tsx')) => m.MyRewards) },
  { id: 'quests', icon: 'flag', feature: 'quests', load: get('/quests'), view: lazy('quests', (m: typeof import('./quests.tsx')) => m.Quests) },
  { id: 'checkin', icon: 'calendar', feature: 'checkin', load: loadCheckin, view: lazy('checkin', (m: typeof import('./checkin.tsx')) => m.CheckinPanel) },
  { id: 'referrals', icon: 'users', feature: 'referrals', load: get('/referral'), view: lazy('referrals', (m: typeof import('./referral.tsx')) => m.ReferralPanel) },
  { id: 'share', icon: 'share', feature: 'share', load: loadShare, view: lazy('share', (m: typeof import('./share.tsx')) => m.SharePanel) },
  { id: 'games', icon: 'dice', feature: 'games', load: get('/games'), view: lazy('games', (m: typeof import('./games.tsx')) => m.Games) },
  { id: 'badges', icon: 'medal', feature: 'badges', load: get('/badges'), view: lazy('badges', (m: typeof import('./badges.tsx')) => m.Badges) },
  { id: 'promo', icon: 'tag', feature: 'promo', load: async () => ({}), view: lazy('promo', (m: typeof import('./promo.tsx')) => m.Promo) },
  { id: 'leaderboard', icon: 'trophy', feature: 'leaderboard', load: get('/leaderboard'), view: lazy('leaderboard', (m: typeof import('./leaderboard.tsx')) => m.Leaderboard) },
  // No widget setting of its own: it shows when the project set up Discord linking (null hides it otherwise).
  { id: 'discord', icon: 'link', feature: 'discord', load: loadDiscord, view: lazy('discord', (m: typeof import('./discord.tsx')) => m.Discord) },
  { id: 'history', icon: 'clock', feature: 'points', load: get('/history?limit=10'), view: lazy('history', (m: typeof import('./history.tsx')) => m.History) },
];
