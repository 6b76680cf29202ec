import { recordShare, shareStatus } from '../../domain/share/share.ts';
import { pathParam, readJson, readQuery, validate } from '../request.ts';
import { emptyBody } from '../../schemas/common.ts';
import { shareBody } from '../../schemas/share.ts';
import { mutate, ok, type ServerApi } from './api.ts';

/** A member's social shares (operators, tests); the widget calls the same functions. */
export function shareRoutes({ route, ctx }: ServerApi): void {
  route('GET', '/members/:externalId/social-share', (event, key, now) => {
    readQuery(event, emptyBody);
    return shareStatus(ctx.db, key.projectId, pathParam(event, 'externalId'), now);
  });

  route('POST', '/members/:externalId/social-share', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(shareBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(recordShare(ctx.db, key.projectId, pathParam(event, 'externalId'), body, key.prefix, now)));
  });
}
