import type { H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { mountResources } from './api.ts';
import { badgeRoutes } from './badges.ts';
import { catalogRoutes } from './catalog.ts';
import { gameRoutes } from './games.ts';
import { leaderboardRoutes } from './leaderboard.ts';
import { memberRoutes } from './members.ts';
import { pointRoutes } from './points.ts';
import { projectRoutes } from './project.ts';
import { promoRoutes } from './promo.ts';
import { questRoutes } from './quests.ts';
import { referralRoutes } from './referrals.ts';
import { rewardRoutes } from './rewards.ts';
import { shareRoutes } from './share.ts';
import { webhookRoutes } from './webhooks.ts';

/** The server REST API under /api/v1: one file per resource, secret key required on every route. */
export function mountServerApi(app: H3, ctx: AppContext): void {
  mountResources(app, ctx, [memberRoutes, pointRoutes, catalogRoutes, questRoutes, badgeRoutes, projectRoutes,
    rewardRoutes, promoRoutes, referralRoutes, gameRoutes, leaderboardRoutes, shareRoutes, webhookRoutes]);
}
