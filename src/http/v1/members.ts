import { listMembers, lookupMember, requireMember, toMember, updateMember, upsertMember } from '../../domain/members/members.ts';
import { eraseMember, exportMember } from '../../domain/members/privacy.ts';
import { emptyBody } from '../../schemas/common.ts';
import { memberCreateBody, memberListQuery, memberLookupQuery, memberUpdateBody } from '../../schemas/members.ts';
import { Answer } from '../route.ts';
import type { ServerApi } from './api.ts';

export function memberRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/members', { body: memberCreateBody, write: true }, ({ key, body, now }) => {
    const { member, created } = upsertMember(ctx.db, key.projectId, body, now);
    return new Answer(member, created ? 201 : 200);
  });

  route('GET', '/members', { query: memberListQuery }, ({ key, query }) => listMembers(ctx.db, key.projectId, query));

  route('GET', '/members/lookup', { query: memberLookupQuery }, ({ key, query }) => lookupMember(ctx.db, key.projectId, query));

  route('GET', '/members/:externalId', {}, ({ key, param }) => toMember(ctx.db, requireMember(ctx.db, key.projectId, param('externalId'))));

  route('PATCH', '/members/:externalId', { body: memberUpdateBody, write: true }, ({ key, body, param, now }) =>
    updateMember(ctx.db, key.projectId, param('externalId'), body, now));

  route('DELETE', '/members/:externalId', { body: emptyBody, optionalBody: true, write: true }, ({ key, param, now }) =>
    eraseMember(ctx.db, key.projectId, param('externalId'), now));

  route('GET', '/members/:externalId/export', {}, ({ key, param, now }) => exportMember(ctx.db, key.projectId, param('externalId'), now));
}
