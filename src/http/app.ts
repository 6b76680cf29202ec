import { H3, type H3Event } from 'h3';
import type { AppContext } from './context.ts';
import { AppError } from '../shared/errors.ts';
import { errorResponse } from './errors.ts';
import { mountPages } from './pages.ts';
import { refuseUnwantedBody } from './request.ts';
import { noteRoute } from './request-log.ts';
import { mountSurfaces } from './surface.ts';
import { OFF, type ReplicationStatus } from '../replication/status.ts';

/** /healthz is public: state, lag and last sync only; the replica's URL (bucket, path) stays with `replicate status`. */
const publicReplication = ({ replica: _replica, ...status }: ReplicationStatus) => status;

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
    onError: (error) => errorResponse(error, ctx.log),
  });
  app.use((event) => {
    noteRoute(event);
    refuseUnwantedBody(event);
    // The server API is limited per key (after it is checked); everything else per client address.
    if (!SERVER_API.test(event.url.pathname)) limitAddress(event, ctx);
  });
  app.get('/healthz', () => ({ status: 'ok', replication: publicReplication(ctx.replication?.() ?? OFF) }));
  mountSurfaces(app, ctx);
  mountPages(app, ctx, options);
  return app;
}
