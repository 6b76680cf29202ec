import type { H3, H3Event } from 'h3';
import { AppError, notFound } from '../../shared/errors.ts';
import { originAllowed, originNotAllowed, requireFeature, widgetProjectConfig, type WidgetFeature, type WidgetProjectConfig } from '../../domain/widget/widget-config.ts';
import type { WidgetSession } from '../../domain/widget/widget-session.ts';
import { guestProject } from '../../domain/widget/widget-guest.ts';
import type { AppContext } from '../context.ts';
import { errorResponse, refuseOtherMethods } from '../errors.ts';
import { readQuery } from '../request.ts';
import { addVary, methodsByPath, type Api, type MountedRoute, type Surface } from '../route.ts';
import { guestQuery } from '../../schemas/widget.ts';
import { requireWidgetSession } from './auth.ts';

const WIDGET_BASE = '/api/widget';

/** Who calls the widget API: a signed-in member, with their project's widget settings. */
export interface WidgetCaller {
  session: WidgetSession;
  config: WidgetProjectConfig;
}

/** A widget route names the widget setting that must be on; none for routes every widget needs. */
export interface WidgetRouteOptions {
  feature?: WidgetFeature;
}

/** What a widget resource file gets: the context and `route`, which authenticates, checks the origin and the feature. */
export type WidgetApi = Api<WidgetCaller, WidgetRouteOptions>;

/** Who calls the guest view: a visitor with the project's publishable key. */
export interface GuestCaller {
  projectId: string;
  config: WidgetProjectConfig;
}

export type GuestApi = Api<GuestCaller, object>;

const ALLOWED_HEADERS = 'X-Widget-Auth, Authorization, Content-Type';

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, PATCH',
  'access-control-max-age': '600',
  vary: 'Origin',
};

/**
 * A preflight carries no X-Widget-Auth, so the project (and its allowed origins) is unknown here.
 * It is answered for any origin: it only says which headers the API takes (Idempotency-Key on the
 * paths that change something). The decision is made on the real request, which is refused before
 * any work when its origin is not allowed.
 */
const preflight = (allowedHeaders: string) => (event: H3Event): Response => {
  const origin = event.req.headers.get('origin');
  return new Response(null, {
    status: 204,
    headers: { ...PREFLIGHT_HEADERS, 'access-control-allow-headers': allowedHeaders, ...(origin ? { 'access-control-allow-origin': origin } : {}) },
  });
};

/** The widget reads Retry-After of a 429. */
const EXPOSED = { 'access-control-expose-headers': 'Retry-After' };

/** The page's own host: the widget served from this server to its own pages (the demo shop). */
const isSameHost = (origin: string, event: H3Event) => {
  try {
    return new URL(origin).host === event.req.headers.get('host');
  } catch {
    return false;
  }
};

/** Whether a page of this origin may act for the project's members: its allowed origins, loopback, or this server's own pages. */
export const pageOriginAllowed = (event: H3Event, origin: string, allowedOrigins: string[]) =>
  isSameHost(origin, event) || originAllowed(origin, allowedOrigins);

/**
 * The CORS headers for a request of this project. Requests without Origin (servers, same-origin
 * GETs) need none. A browser request from an origin the project does not allow is refused
 * (`origin_not_allowed`) before any work, with CORS headers so the widget can read why.
 */
function corsHeaders(event: H3Event, projectId: string, allowedOrigins: string[]): Record<string, string> {
  const origin = event.req.headers.get('origin');
  if (origin === null) return {};
  if (allowedOrigins.includes('*')) return { 'access-control-allow-origin': '*', ...EXPOSED };
  const headers = { 'access-control-allow-origin': origin, vary: 'Origin', ...EXPOSED };
  if (pageOriginAllowed(event, origin, allowedOrigins)) return headers;
  const refusal = originNotAllowed(origin, projectId);
  throw new AppError(refusal.status, refusal.error, refusal.message, headers);
}

/**
 * Runs a widget request. Until the project is known (a 401 or a 429 of the authentication), an
 * error is readable by any page: it holds no member data, and the widget must tell "sign in again"
 * from "offline". Once `allow` has checked the origin against the project's, the answer and its
 * errors carry that project's CORS headers.
 */
async function withCors(
  event: H3Event,
  ctx: AppContext,
  work: (allow: (projectId: string, config: WidgetProjectConfig) => void) => Promise<unknown>,
): Promise<unknown> {
  const origin = event.req.headers.get('origin');
  let cors: Record<string, string> = origin === null ? {} : { 'access-control-allow-origin': origin, vary: 'Origin', ...EXPOSED };
  try {
    return await work((projectId, config) => {
      cors = corsHeaders(event, projectId, config.widgetSettings.allowedOrigins);
      // Vary joins the surface's own (route.ts), which h3's headers would replace.
      for (const [name, value] of Object.entries(cors)) {
        if (name === 'vary') addVary(event, value);
        else event.res.headers.set(name, value);
      }
    });
  } catch (error) {
    const response = errorResponse(error, ctx.log, event);
    for (const [name, value] of Object.entries(cors)) response.headers.set(name, value);
    return response;
  }
}

/** Preflights and 405s on every widget path; Idempotency-Key is among the allowed headers where a route changes something. */
function answerPaths(app: H3, routes: MountedRoute[]): void {
  for (const [path, methods] of methodsByPath(routes)) {
    const keyed = routes.some((route) => route.path === path && route.changes);
    app.options(path, preflight(keyed ? `${ALLOWED_HEADERS}, Idempotency-Key` : ALLOWED_HEADERS), { meta: { answers: 'preflight' } });
    refuseOtherMethods(app, path, [...methods, 'OPTIONS']);
  }
}

/**
 * /api/widget: a session or X-Widget-Auth on every route, the origin and the feature checked, and
 * errors that keep their CORS headers. A shopper's Idempotency-Keys are their own.
 */
export function widgetSurface(ctx: AppContext): Surface<WidgetCaller, WidgetRouteOptions> {
  const serve: Surface<WidgetCaller, WidgetRouteOptions>['serve'] = (event, route, next) => withCors(event, ctx, async (allow) => {
    const session = ctx.guard.authAttempt(event, () => requireWidgetSession(event, ctx));
    const config = widgetProjectConfig(ctx.db, session.projectId);
    allow(session.projectId, config);
    ctx.guard.limitMember(session.projectId, session.externalId, route.changes);
    if (route.feature) requireFeature(config, route.feature);
    return next({ session, config });
  });
  return {
    name: 'widget API',
    base: WIDGET_BASE,
    vary: 'Authorization, X-Widget-Auth',
    serve,
    keyScope: ({ session }) => ({ projectId: session.projectId, externalId: session.externalId }),
    finish(app, routes) {
      answerPaths(app, routes);
      app.options(`${WIDGET_BASE}/**`, preflight(ALLOWED_HEADERS), { meta: { answers: 'preflight' } });
      // Signed in and from an allowed origin, an unknown path is a plain 404 the widget can read: it
      // hides the panels whose endpoints this server does not have.
      const unknown: MountedRoute = { surface: 'widget API', method: 'GET', path: `${WIDGET_BASE}/**`, body: undefined, optionalBody: false, query: undefined, responses: {}, errors: [], write: false, changes: false };
      app.all(`${WIDGET_BASE}/**`, (event) => serve(event, unknown, () => {
        throw notFound(`No widget endpoint ${event.req.method} ${event.url.pathname}; see docs/widget.md.`);
      }), { meta: { answers: 'not found' } });
    },
  };
}

/**
 * GET /api/widget/guest?publicKey=pk_…: the programme for visitors who are not signed in, from
 * the publishable key alone. Public and read-only; the address limit applies (as to every public
 * path), a wrong key spends the address's failed-check budget, and only allowed origins may read it.
 */
export function guestSurface(ctx: AppContext): Surface<GuestCaller, object> {
  return {
    name: 'widget guest view',
    base: WIDGET_BASE,
    serve: (event, _route, next) => withCors(event, ctx, async (allow) => {
      const { publicKey } = readQuery(event, guestQuery);
      const projectId = ctx.guard.authAttempt(event, () => guestProject(ctx.db, publicKey, ctx.clock()));
      const config = widgetProjectConfig(ctx.db, projectId);
      allow(projectId, config);
      return next({ projectId, config });
    }),
    keyScope: ({ projectId }) => ({ projectId, namespace: 'widget guest view' }),
    finish: answerPaths,
  };
}
