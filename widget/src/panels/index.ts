import type { FunctionComponent } from 'preact';
import type { Call } from '../api.ts';
import { lazy } from '../lazy.tsx';
import type { Key } from '../strings.ts';
import type { PanelProps } from './common.tsx';
import type { Game } from './games.tsx';
import { Home } from './home.tsx';
import { Rewards } from './rewards.tsx';
import type { ShareInfo } from './share.tsx';

export interface PanelDef {
  /** Also the translation key of its tab. */
  id: Key;
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

// Home and Rewards are in the main script; the other panels' views are chunks (chunks.ts), fetched
// when first shown. Their data loads with the others' when the drawer opens, so their tabs appear alike.
export const PANELS: PanelDef[] = [
  { id: 'home', feature: 'points', load: get('/history?limit=10'), view: Home },
  { id: 'rewards', feature: 'rewards', load: get('/rewards'), view: Rewards },
  { id: 'myRewards', feature: 'rewards', load: get('/claims'), view: lazy('myRewards', (m: typeof import('./my-rewards.tsx')) => m.MyRewards) },
  { id: 'quests', feature: 'quests', load: get('/quests'), view: lazy('quests', (m: typeof import('./quests.tsx')) => m.Quests) },
  { id: 'badges', feature: 'badges', load: get('/badges'), view: lazy('badges', (m: typeof import('./badges.tsx')) => m.Badges) },
  { id: 'games', feature: 'games', load: get('/games'), view: lazy('games', (m: typeof import('./games.tsx')) => m.Games) },
  { id: 'checkin', feature: 'checkin', load: loadCheckin, view: lazy('checkin', (m: typeof import('./checkin.tsx')) => m.CheckinPanel) },
  { id: 'referrals', feature: 'referrals', load: get('/referral'), view: lazy('referrals', (m: typeof import('./referral.tsx')) => m.ReferralPanel) },
  { id: 'promo', feature: 'promo', load: async () => ({}), view: lazy('promo', (m: typeof import('./promo.tsx')) => m.Promo) },
  { id: 'share', feature: 'share', load: loadShare, view: lazy('share', (m: typeof import('./share.tsx')) => m.SharePanel) },
  { id: 'leaderboard', feature: 'leaderboard', load: get('/leaderboard'), view: lazy('leaderboard', (m: typeof import('./leaderboard.tsx')) => m.Leaderboard) },
];
