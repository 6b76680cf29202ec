import { awardBadge, listMemberBadges, removeBadge } from '../../domain/badges/member-badges.ts';
import { memberBadgeBody } from '../../schemas/quests.ts';
import { created } from '../route.ts';
import type { ServerApi } from './api.ts';

export function badgeRoutes({ route, ctx }: ServerApi): void {
  route('GET', '/members/:externalId/badges', {}, ({ key, param }) => listMemberBadges(ctx.db, key.projectId, param('externalId')));

  route('POST', '/members/:externalId/badges', { body: memberBadgeBody, write: true }, ({ key, body, param, now }) =>
    created(awardBadge(ctx.db, key.projectId, param('externalId'), body.badgeId, now)));

  route('DELETE', '/members/:externalId/badges', { body: memberBadgeBody, write: true }, ({ key, body, param }) =>
    removeBadge(ctx.db, key.projectId, param('externalId'), body.badgeId));
}
