import type { H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { mountWidgetResources } from './api.ts';
import { badgeRoutes } from './badges.ts';
import { claimRoutes } from './claims.ts';
import { gameRoutes } from './games.ts';
import { mountGuestRoute } from './guest.ts';
import { historyRoutes } from './history.ts';
import { initRoutes } from './init.ts';
import { leaderboardRoutes } from './leaderboard.ts';
import { profileRoutes } from './profile.ts';
import { promoRoutes } from './promo.ts';
import { questRoutes } from './quests.ts';
import { questReportRoutes } from './quest-report.ts';
import { referralRoutes } from './referrals.ts';
import { rewardRoutes } from './rewards.ts';
import { shareRoutes } from './share.ts';

/** The widget API under /api/widget: one file per resource, a session or X-Widget-Auth on every route but the guest view. */
export function mountWidgetApi(app: H3, ctx: AppContext): void {
  mountGuestRoute(app, ctx);
  mountWidgetResources(app, ctx, [
    initRoutes, profileRoutes, historyRoutes, questRoutes, questReportRoutes, badgeRoutes, rewardRoutes, claimRoutes, gameRoutes, promoRoutes, referralRoutes, shareRoutes, leaderboardRoutes,
  ]);
}
