import type { H3, H3Event } from 'h3';
import { VERSION } from '../shared/assets.ts';
import { constantTimeEqual } from '../shared/secrets.ts';
import { OFF, type ReplicationStatus } from '../replication/status.ts';
import { deliveryCounts } from '../webhooks/deliveries.ts';
import { hasMetricsToken, isMetricsToken } from '../domain/metrics/metrics-token.ts';
import { AppError, notFound } from '../shared/errors.ts';
import type { AppContext } from './context.ts';

/** /healthz is public: state, lag and last sync only; the replica's URL (bucket, path) stays with `replicate status`. */
const publicReplication = ({ replica: _replica, ...status }: ReplicationStatus) => status;

/**
 * /metrics reports the whole server, so it takes the metrics token only (`punchcard metrics token`,
 * or `serve --metrics-token`), as `Authorization: Bearer <token>`, never a project's key. Without
 * either token it is off (404). A wrong token spends the address's failed-check budget, as a wrong key does.
 */
function requireMetricsAccess(event: H3Event, ctx: AppContext): void {
  const token = ctx.metricsToken;
  if (!token && !hasMetricsToken(ctx.db)) {
    throw notFound('/metrics is off: no metrics token is set. Create one with `punchcard metrics token` (or start the server with --metrics-token).');
  }
  ctx.guard.authAttempt(event, () => {
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(event.req.headers.get('authorization') ?? '')?.[1];
    if (bearer === undefined) throw new AppError(401, 'Unauthorized', 'Send the metrics token as "Authorization: Bearer <token>".');
    if ((token && constantTimeEqual(bearer, token)) || isMetricsToken(ctx.db, bearer)) return;
    throw new AppError(401, 'Unauthorized', bearer.startsWith('sk_')
      ? 'A project\'s secret key does not read /metrics, which reports the whole server: use the metrics token (`punchcard metrics token`).'
      : 'That is not the metrics token.');
  });
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

