import type { H3Event } from 'h3';
import type { CommunitySettings } from '../../domain/community/settings.ts';
import type { WidgetSession } from '../../domain/widget/widget-session.ts';
import { requireDeliveryProject } from '../../integrations/community/signature.ts';
import type { AppContext } from '../context.ts';
import { refuseUnservedMethods, type Api, type Surface } from '../route.ts';
import { requireWidgetSession } from '../widget/auth.ts';
import { serverSurface, type ServerCaller } from '../v1/api.ts';

/** Who sends community events: the project whose guild the X-Community-Guild-Id names (the handler checks the signature). */
export interface DeliveryCaller {
  settings: CommunitySettings;
}
export type DeliveryApi = Api<DeliveryCaller, object>;

/**
 * POST /api/v1/community/events: no API key; the guild header names the project (an unknown guild
 * is a 401 that spends the address's failed-check budget), then the route checks the signature
 * over the raw body (`verify`), before any Idempotency-Key lookup. The bot's keys are its own.
 */
export function deliverySurface(ctx: AppContext): Surface<DeliveryCaller, object> {
  return {
    name: 'community events',
    base: '/api/v1/community',
    serve(event, _route, next) {
      const settings = ctx.guard.authAttempt(event, () => requireDeliveryProject(ctx.db, event.req.headers.get('x-community-guild-id')));
      return next({ settings });
    },
    keyScope: ({ settings }) => ({ projectId: settings.projectId, namespace: 'community events' }),
    finish: refuseUnservedMethods,
  };
}

/** Who starts account linking: a member signed in to the widget (session or X-Widget-Auth). */
export interface LinkCaller {
  session: WidgetSession | null;
}
export type LinkApi = Api<LinkCaller, { public?: true }>;

/**
 * /api/community: the widget's "link your Discord" (a widget session) and the OAuth callback, which
 * a browser reaches from Discord with nothing but the signed state (`public`). The address limit is
 * the app's, taken once for every path outside the server API (app.ts), so not again here.
 */
export function linkSurface(ctx: AppContext): Surface<LinkCaller, { public?: true }> {
  return {
    name: 'community linking',
    base: '/api/community',
    vary: 'Authorization, X-Widget-Auth',
    serve(event: H3Event, route, next) {
      if (route.public) return next({ session: null });
      const session = ctx.guard.authAttempt(event, () => requireWidgetSession(event, ctx));
      ctx.guard.limitMember(session.projectId, session.externalId, false);
      return next({ session });
    },
    keyScope: ({ session }) => ({ projectId: session?.projectId ?? '', namespace: 'community linking' }),
    finish: refuseUnservedMethods,
  };
}

/** /api/community/events/logs: the server API's secret-key check under another prefix. */
export function logSurface(ctx: AppContext): Surface<ServerCaller, object> {
  return { ...serverSurface(ctx), name: 'community log', base: '/api/community', keyScope: ({ key }) => ({ projectId: key.projectId, namespace: 'community log' }) };
}
