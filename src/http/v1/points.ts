import { adjustPoints, pointsSummary } from '../../domain/ledger/ledger.ts';
import { pointsBody, pointsQuery } from '../../schemas/points.ts';
import { Answer } from '../route.ts';
import type { ServerApi } from './api.ts';
import * as answers from '../../schemas/answers/server.ts';

export function pointRoutes({ route, ctx }: ServerApi): void {
  // The body's idempotencyKey is the route's key (route.ts); an award's answer is replayed from its
  // ledger row: the key stores a reference, not a copy.
  route('POST', '/members/:externalId/points', { body: pointsBody, write: true, forShopper: true, responses: { 200: answers.award } }, ({ key, body: { idempotencyKey: _key, ...adjustment }, param, now }) =>
    new Answer(adjustPoints(ctx.db, key.projectId, param('externalId'), adjustment, key.prefix, now), 200, 'award'));

  route('GET', '/members/:externalId/points', { query: pointsQuery, responses: { 200: answers.pointsSummary } }, ({ key, param, query }) =>
    pointsSummary(ctx.db, key.projectId, param('externalId'), query));
}
