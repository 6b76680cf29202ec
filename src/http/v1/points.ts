import { adjustPoints, pointsSummary } from '../../domain/ledger/ledger.ts';
import { pointsBody, pointsQuery } from '../../schemas/points.ts';
import { Answer } from '../route.ts';
import type { ServerApi } from './api.ts';

export function pointRoutes({ route, ctx }: ServerApi): void {
  // The body's idempotencyKey is the route's key (route.ts); an award's answer is replayed from its
  // ledger row: the key stores a reference, not a copy.
  route('POST', '/members/:externalId/points', { body: pointsBody, write: true }, ({ key, body: { idempotencyKey: _key, ...adjustment }, param, now }) =>
    new Answer(adjustPoints(ctx.db, key.projectId, param('externalId'), adjustment, key.prefix, now), 200, 'award'));

  route('GET', '/members/:externalId/points', { query: pointsQuery }, ({ key, param, query }) =>
    pointsSummary(ctx.db, key.projectId, param('externalId'), query));
}
