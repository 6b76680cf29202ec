import type { FunctionComponent } from 'preact';
import type { Call } from '../api.ts';
import type { Key } from '../strings.ts';
import { Badges } from './badges.tsx';
import { CheckinPanel } from './checkin.tsx';
import type { PanelProps } from './common.tsx';
import { Games, type Game } from './games.tsx';
import { Home } from './home.tsx';
import { Leaderboard } from './leaderboard.tsx';
import { MyRewards } from './my-rewards.tsx';
import { Promo } from './promo.tsx';
import { Quests } from './quests.tsx';
import { ReferralPanel } from './referral.tsx';
import { Rewards } from './rewards.tsx';
import { SharePanel, type ShareInfo } from './share.tsx';

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

export const PANELS: PanelDef[] = [
  { id: 'home', feature: 'points', load: get('/history?limit=10'), view: Home },
  { id: 'rewards', feature: 'rewards', load: get('/rewards'), view: Rewards },
  { id: 'myRewards', feature: 'rewards', load: get('/claims'), view: MyRewards },
  { id: 'quests', feature: 'quests', load: get('/quests'), view: Quests },
  { id: 'badges', feature: 'badges', load: get('/badges'), view: Badges },
  { id: 'games', feature: 'games', load: get('/games'), view: Games },
  { id: 'checkin', feature: 'checkin', load: loadCheckin, view: CheckinPanel },
  { id: 'referrals', feature: 'referrals', load: get('/referral'), view: ReferralPanel },
  { id: 'promo', feature: 'promo', load: async () => ({}), view: Promo },
  { id: 'share', feature: 'share', load: loadShare, view: SharePanel },
  { id: 'leaderboard', feature: 'leaderboard', load: get('/leaderboard'), view: Leaderboard },
];
