import { H3, type H3Event } from 'h3';
import type { AppContext } from './context.ts';
import { AppError } from '../shared/errors.ts';
import { errorResponse } from './errors.ts';
import { mountPages } from './pages.ts';
import { refuseUnwantedBody } from './request.ts';
import { noteRoute } from './request-log.ts';
import { mountSurfaces } from './surface.ts';
import { mountApiDocs } from './api-docs.ts';
import { mountHealth } from './health.ts';
import { mountAdminApp } from './admin-app.ts';
import { adminSettings } from './admin/api.ts';

// The commerce routes are limited per key too, and a store's burst of deliveries by its signature checks, not by its address.
const SERVER_API = /^\/api\/(?:v1|commerce)(?:\/|$)/;

/** A 429 any page can read, Retry-After included: the widget on a shop's page shows it rather than "Failed to fetch". */
function limitAddress(event: H3Event, ctx: AppContext): void {
  try {
    ctx.guard.limitAddress(event);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    throw new AppError(error.status, error.error, error.message, {
      ...error.headers, 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Retry-After',
    });
  }
}

/** Every HTTP surface of Punchcard on one h3 app; every error leaves as `{error, message}`. */
export function createApp(ctx: AppContext, options: { demo: boolean } = { demo: false }): H3 {
  const app = new H3({
    silent: true,
    onError: (error, event) => errorResponse(error, ctx.log, event),
    onRequest: (event) => {
      event.context.startedAt = performance.now();
    },
    onResponse: (response, event) => ctx.metrics.observe(event, response.status, event.context.startedAt as number),
  });
  app.use((event) => {
    noteRoute(event);
    ctx.guard.noteForwarding(event);
    refuseUnwantedBody(event);
    // The server API is limited per key (after it is checked); everything else per client address.
    if (!SERVER_API.test(event.url.pathname)) limitAddress(event, ctx);
  });
  mountHealth(app, ctx);
  mountApiDocs(app, ctx, mountSurfaces(app, ctx));
  mountPages(app, ctx, options);
  // The admin's pages, unless serve --no-admin (its API is left out the same way, in surface.ts).
  if (adminSettings(ctx).enabled) mountAdminApp(app);
  return app;
}
