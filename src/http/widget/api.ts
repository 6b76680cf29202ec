import type { H3, H3Event, HTTPMethod } from 'h3';
import { AppError, notFound } from '../../shared/errors.ts';
import { originAllowed, originNotAllowed, requireFeature, widgetProjectConfig, type WidgetFeature, type WidgetProjectConfig } from '../../domain/widget/widget-config.ts';
import type { AppContext } from '../context.ts';
import { errorResponse, refuseOtherMethods } from '../errors.ts';
import { requireWidgetSession, type WidgetSession } from './auth.ts';

export const WIDGET_BASE = '/api/widget';

export interface WidgetRequest {
  session: WidgetSession;
  config: WidgetProjectConfig;
  now: Date;
}

export type WidgetHandler = (event: H3Event, request: WidgetRequest) => unknown;

/** What a widget resource file gets: the context and `route`, which authenticates, checks the origin and the feature. */
export interface WidgetApi {
  ctx: AppContext;
  /** `feature` names the widget setting that must be on; null for routes every widget needs. */
  route(method: HTTPMethod, path: string, feature: WidgetFeature | null, handler: WidgetHandler): void;
}

const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, PATCH',
  'access-control-allow-headers': 'X-Widget-Auth, Authorization, Content-Type',
  'access-control-max-age': '600',
  vary: 'Origin',
};

/**
 * A preflight carries no X-Widget-Auth, so the project (and its allowed origins) is unknown here.
 * It is answered for any origin: it only says which headers the API takes. The decision is made
 * on the real request, which is refused before any work when its origin is not allowed.
 */
function preflight(event: H3Event): Response {
  const origin = event.req.headers.get('origin');
  return new Response(null, { status: 204, headers: { ...PREFLIGHT_HEADERS, ...(origin ? { 'access-control-allow-origin': origin } : {}) } });
}

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

/**
 * The CORS headers for a request of this project. Requests without Origin (servers, same-origin
 * GETs) need none. A browser request from an origin the project does not allow is refused
 * (`origin_not_allowed`) before any work, with CORS headers so the widget can read why.
 */
export function corsHeaders(event: H3Event, projectId: string, allowedOrigins: string[]): Record<string, string> {
  const origin = event.req.headers.get('origin');
  if (origin === null) return {};
  if (allowedOrigins.includes('*')) return { 'access-control-allow-origin': '*', ...EXPOSED };
  const headers = { 'access-control-allow-origin': origin, vary: 'Origin', ...EXPOSED };
  if (isSameHost(origin, event) || originAllowed(origin, allowedOrigins)) return headers;
  const refusal = originNotAllowed(origin, projectId);
  throw new AppError(refusal.status, refusal.error, refusal.message, headers);
}

/**
 * Until the project is known (a 401 or a 429 of the authentication), an error is readable by any
 * page: it holds no member data, and the widget must tell "sign in again" from "offline".
 */
export function errorCors(event: H3Event): Record<string, string> {
  const origin = event.req.headers.get('origin');
  return origin === null ? {} : { 'access-control-allow-origin': origin, vary: 'Origin', ...EXPOSED };
}

/** Authenticates, checks origin and feature, runs the handler; errors keep the CORS headers so the widget can read them. */
async function handle(event: H3Event, ctx: AppContext, feature: WidgetFeature | null, write: boolean, handler: WidgetHandler): Promise<unknown> {
  let cors = errorCors(event);
  try {
    const session = ctx.guard.authAttempt(event, () => requireWidgetSession(event, ctx));
    const config = widgetProjectConfig(ctx.db, session.projectId);
    cors = corsHeaders(event, session.projectId, config.widgetSettings.allowedOrigins);
    for (const [name, value] of Object.entries(cors)) event.res.headers.set(name, value);
    ctx.guard.limitMember(session.projectId, session.externalId, write);
    if (feature) requireFeature(config, feature);
    return await handler(event, { session, config, now: ctx.clock() });
  } catch (error) {
    const response = errorResponse(error, ctx.log);
    for (const [name, value] of Object.entries(cors)) response.headers.set(name, value);
    return response;
  }
}

/** Mounts widget resources under /api/widget, with preflights, 405s, and a 404 for any other path. */
export function mountWidgetResources(app: H3, ctx: AppContext, resources: ((api: WidgetApi) => void)[]): void {
  const methodsByPath = new Map<string, HTTPMethod[]>();
  const api: WidgetApi = {
    ctx,
    route(method, path, feature, handler) {
      methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), method]);
      // init runs on every page view and writes only on a member's first visit or changed profile.
      const write = method !== 'GET' && path !== '/init';
      app.on(method, `${WIDGET_BASE}${path}`, (event) => handle(event, ctx, feature, write, handler));
    },
  };
  for (const mount of resources) mount(api);
  for (const [path, methods] of methodsByPath) {
    app.options(`${WIDGET_BASE}${path}`, preflight);
    refuseOtherMethods(app, `${WIDGET_BASE}${path}`, [...methods, 'OPTIONS']);
  }
  app.options(`${WIDGET_BASE}/**`, preflight);
  // Signed in and from an allowed origin, an unknown path is a plain 404 the widget can read: it
  // hides the panels whose endpoints this server does not have.
  app.all(`${WIDGET_BASE}/**`, (event) => handle(event, ctx, null, false, () => {
    throw notFound(`No widget endpoint ${event.req.method} ${event.url.pathname}; see docs/widget.md.`);
  }));
}
