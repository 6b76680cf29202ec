import { awardBadge, listMemberBadges, removeBadge } from '../../domain/badges/member-badges.ts';
import { pathParam, readJson, validate } from '../request.ts';
import { memberBadgeBody } from '../../schemas/quests.ts';
import { created, mutate, ok, type ServerApi } from './api.ts';

export function badgeRoutes({ route, ctx }: ServerApi): void {
  route('GET', '/members/:externalId/badges', (event, key) => listMemberBadges(ctx.db, key.projectId, pathParam(event, 'externalId')));

  route('POST', '/members/:externalId/badges', async (event, key, now) => {
    const rawBody = await readJson(event);
    const { badgeId } = validate(memberBadgeBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => created(awardBadge(ctx.db, key.projectId, pathParam(event, 'externalId'), badgeId, now)));
  });

  route('DELETE', '/members/:externalId/badges', async (event, key, now) => {
    const rawBody = await readJson(event);
    const { badgeId } = validate(memberBadgeBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(removeBadge(ctx.db, key.projectId, pathParam(event, 'externalId'), badgeId)));
  });
}
