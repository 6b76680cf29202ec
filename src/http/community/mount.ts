import type { H3 } from 'h3';
import type { AppContext } from '../context.ts';
import { mountSurface, type MountedRoute } from '../route.ts';
import { serverSurface } from '../v1/api.ts';
import { widgetSurface } from '../widget/api.ts';
import { communityWidgetRoutes } from './widget.ts';
import { deliverySurface, linkSurface, logSurface } from './api.ts';
import { communityAuthRoutes } from './auth.ts';
import { communityLogRoutes } from './logs.ts';
import { communityEventRoutes } from './events.ts';
import { communitySettingsRoutes } from './settings.ts';

/** The Discord community integration's routes (docs/discord.md): settings on the server API, the signed events endpoint, linking, the log. */
export function mountCommunity(app: H3, ctx: AppContext): MountedRoute[] {
  return [
    ...mountSurface(app, ctx, serverSurface(ctx), [communitySettingsRoutes]),
    ...mountSurface(app, ctx, deliverySurface(ctx), [communityEventRoutes]),
    ...mountSurface(app, ctx, logSurface(ctx), [communityLogRoutes]),
    ...mountSurface(app, ctx, linkSurface(ctx), [communityAuthRoutes]),
    ...mountSurface(app, ctx, widgetSurface(ctx), [communityWidgetRoutes]),
  ];
}
