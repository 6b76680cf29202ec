import { adjustPoints, pointsSummary } from '../../domain/ledger/ledger.ts';
import { pathParam, readJson, readQuery, validate } from '../request.ts';
import { pointsBody, pointsQuery } from '../../schemas/points.ts';
import { mutate, ok, type ServerApi } from './api.ts';

export function pointRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/members/:externalId/points', async (event, key, now) => {
    const rawBody = await readJson(event);
    const { idempotencyKey: bodyKey, ...adjustment } = validate(pointsBody, rawBody);
    // An award's answer is replayed from its ledger row: the key stores a reference, not a copy.
    return mutate(event, ctx, key, now, { rawBody, bodyKey }, () =>
      ({ ...ok(adjustPoints(ctx.db, key.projectId, pathParam(event, 'externalId'), adjustment, key.prefix, now)), storeAs: 'award' }));
  });

  route('GET', '/members/:externalId/points', (event, key) =>
    pointsSummary(ctx.db, key.projectId, pathParam(event, 'externalId'), readQuery(event, pointsQuery)));
}
