import { awardBadge, listMemberBadges, removeBadge } from '../../domain/badges/member-badges.ts';
import { memberBadgeBody } from '../../schemas/quests.ts';
import { created } from '../route.ts';
import type { ServerApi } from './api.ts';
import * as answers from '../../schemas/answers/server.ts';

export function badgeRoutes({ route, ctx }: ServerApi): void {
  route('GET', '/members/:externalId/badges', { responses: { 200: answers.memberBadges } }, ({ key, param }) => listMemberBadges(ctx.db, key.projectId, param('externalId')));

  route('POST', '/members/:externalId/badges', { body: memberBadgeBody, write: true, responses: { 201: answers.badgeAwarded } }, ({ key, body, param, now }) =>
    created(awardBadge(ctx.db, key.projectId, param('externalId'), body.badgeId, now)));

  route('DELETE', '/members/:externalId/badges', { body: memberBadgeBody, write: true, responses: { 200: answers.badgeRemoved } }, ({ key, body, param }) =>
    removeBadge(ctx.db, key.projectId, param('externalId'), body.badgeId));
}
