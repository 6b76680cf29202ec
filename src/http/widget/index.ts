import type { H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { mountWidgetResources } from './api.ts';
import { badgeRoutes } from './badges.ts';
import { historyRoutes } from './history.ts';
import { initRoutes } from './init.ts';
import { profileRoutes } from './profile.ts';
import { questRoutes } from './quests.ts';

/** The widget API under /api/widget: one file per resource, X-Widget-Auth on every route. */
export function mountWidgetApi(app: H3, ctx: AppContext): void {
  mountWidgetResources(app, ctx, [initRoutes, profileRoutes, historyRoutes, questRoutes, badgeRoutes]);
}
