import type { H3, H3Event } from 'h3';
import { VERSION } from '../shared/assets.ts';
import { constantTimeEqual } from '../shared/secrets.ts';
import { OFF, type ReplicationStatus } from '../replication/status.ts';
import { deliveryCounts } from '../webhooks/deliveries.ts';
import { requireSecretKey } from './auth.ts';
import type { AppContext } from './context.ts';


/** /healthz is public: state, lag and last sync only; the replica's URL (bucket, path) stays with `replicate status`. */
const publicReplication = ({ replica: _replica, ...status }: ReplicationStatus) => status;

/** /metrics takes the metrics token (`serve --metrics-token`) as a Bearer token, or else any live secret key. */
function requireMetricsAccess(event: H3Event, ctx: AppContext): void {
  const token = ctx.metricsToken;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(event.req.headers.get('authorization') ?? '')?.[1];
  if (token && bearer !== undefined && constantTimeEqual(bearer, token)) return;
  ctx.guard.authAttempt(event, () => requireSecretKey(event, ctx));
}

/**
 * GET /healthz (public): 200 when a write transaction can be taken and committed right now, 503
 * when not; the delivery queue and replication either way. GET /metrics: Prometheus text.
 */
export function mountHealth(app: H3, ctx: AppContext): void {
  app.get('/healthz', async () => {
    let database = 'ok';
    try {
      // An empty write through the group committer: BEGIN IMMEDIATE takes the write lock and COMMIT
      // ends it, so a locked, read-only or failing file answers 503 rather than a cheerful "ok".
      await ctx.write(() => null);
    } catch {
      database = 'unwritable';
    }
    const replication = publicReplication(ctx.replication?.() ?? OFF);
    let jobs: { pending: number; dead: number } | null = null;
    try {
      jobs = deliveryCounts(ctx.db);
    } catch {
      database = 'unreadable';
    }
    const body = { status: database === 'ok' ? 'ok' : 'unavailable', version: VERSION, database, jobs, replication, warnings: ctx.guard.warnings() };
    return database === 'ok' ? body : Response.json(body, { status: 503, headers: { 'retry-after': '5' } });
  });

  app.get('/metrics', async (event) => {
    requireMetricsAccess(event, ctx);
    const registry = await ctx.metrics.registry();
    return new Response(await registry.metrics(), { headers: { 'content-type': registry.contentType } });
  });
}

