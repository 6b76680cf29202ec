import type { H3 } from 'h3';
import type { AppContext } from './context.ts';
import { mountSurface, type MountedRoute } from './route.ts';
import { serverSurface } from './v1/api.ts';
import { badgeRoutes } from './v1/badges.ts';
import { catalogRoutes } from './v1/catalog.ts';
import { gameRoutes } from './v1/games.ts';
import { leaderboardRoutes } from './v1/leaderboard.ts';
import { memberRoutes } from './v1/members.ts';
import { pointRoutes } from './v1/points.ts';
import { projectRoutes } from './v1/project.ts';
import { promoRoutes } from './v1/promo.ts';
import { questRoutes } from './v1/quests.ts';
import { referralRoutes } from './v1/referrals.ts';
import { rewardRoutes } from './v1/rewards.ts';
import { shareRoutes } from './v1/share.ts';
import { webhookRoutes } from './v1/webhooks.ts';
import { commerceSurface, deliverySurface } from './commerce/api.ts';
import { commerceResources, deliveryResources } from './commerce/resources.ts';
import { deliverySurface as communityDeliverySurface, linkSurface, logSurface } from './community/api.ts';
import { communityAuthRoutes } from './community/auth.ts';
import { communityEventRoutes } from './community/events.ts';
import { communityLogRoutes } from './community/logs.ts';
import { communitySettingsRoutes } from './community/settings.ts';
import { communityWidgetRoutes } from './community/widget.ts';
import { guestSurface, widgetSurface } from './widget/api.ts';
import { badgeRoutes as widgetBadges } from './widget/badges.ts';
import { claimRoutes as widgetClaims } from './widget/claims.ts';
import { gameRoutes as widgetGames } from './widget/games.ts';
import { guestRoutes } from './widget/guest.ts';
import { historyRoutes as widgetHistory } from './widget/history.ts';
import { initRoutes as widgetInit } from './widget/init.ts';
import { leaderboardRoutes as widgetLeaderboard } from './widget/leaderboard.ts';
import { profileRoutes as widgetProfile } from './widget/profile.ts';
import { promoRoutes as widgetPromo } from './widget/promo.ts';
import { questRoutes as widgetQuests } from './widget/quests.ts';
import { questReportRoutes as widgetQuestReport } from './widget/quest-report.ts';
import { referralRoutes as widgetReferrals } from './widget/referrals.ts';
import { rewardRoutes as widgetRewards } from './widget/rewards.ts';
import { shareRoutes as widgetShare } from './widget/share.ts';
import { adminAccountSurface, adminProjectSurface, adminSettings } from './admin/api.ts';
import { accountResources, projectResources } from './admin/resources.ts';

/**
 * Every API surface, mounted here and nowhere else, each route through route.ts: the server API
 * under /api/v1 (secret key; one file per resource in v1/), the widget API under /api/widget (a
 * member's session or ticket; widget/), and the widget's guest view. Returns the routes table.
 */
export function mountSurfaces(app: H3, ctx: AppContext): MountedRoute[] {
  return [
    ...mountSurface(app, ctx, serverSurface(ctx), [memberRoutes, pointRoutes, catalogRoutes, questRoutes, badgeRoutes, projectRoutes,
      rewardRoutes, promoRoutes, referralRoutes, gameRoutes, leaderboardRoutes, shareRoutes, webhookRoutes, communitySettingsRoutes]),
    // WooCommerce (docs/woocommerce.md): the store's connection and coupons by secret key; its signed deliveries.
    ...mountSurface(app, ctx, commerceSurface(ctx), commerceResources), ...mountSurface(app, ctx, deliverySurface(ctx), deliveryResources),
    // Discord (docs/discord.md): the bot's signed events, the delivery log, account linking.
    ...mountSurface(app, ctx, communityDeliverySurface(ctx), [communityEventRoutes]),
    ...mountSurface(app, ctx, logSurface(ctx), [communityLogRoutes]),
    ...mountSurface(app, ctx, linkSurface(ctx), [communityAuthRoutes]),
    ...mountSurface(app, ctx, guestSurface(ctx), [guestRoutes]),
    ...mountSurface(app, ctx, widgetSurface(ctx), [widgetInit, widgetProfile, widgetHistory, widgetQuests, widgetQuestReport, widgetBadges, widgetRewards,
      widgetClaims, widgetGames, widgetPromo, widgetReferrals, widgetShare, widgetLeaderboard, communityWidgetRoutes]),
    // The web admin's own surface (docs/admin.md), unless serve --no-admin.
    ...(adminSettings(ctx).enabled
      ? [...mountSurface(app, ctx, adminAccountSurface(ctx), accountResources), ...mountSurface(app, ctx, adminProjectSurface(ctx), projectResources)] : []),
  ];
}
