import { listMembers, lookupMember, memberView, requireMember, updateMember, upsertMember } from '../../domain/members/members.ts';
import { eraseMember, exportMember } from '../../domain/members/privacy.ts';
import { pathParam, readJson, readQuery, validate } from '../request.ts';
import { emptyBody } from '../../schemas/common.ts';
import { memberCreateBody, memberListQuery, memberLookupQuery, memberUpdateBody } from '../../schemas/members.ts';
import { mutate, ok, type ServerApi } from './api.ts';

export function memberRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/members', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(memberCreateBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => {
      const { member, created } = upsertMember(ctx.db, key.projectId, body, now);
      return { status: created ? 201 : 200, body: member };
    });
  });

  route('GET', '/members', (event, key) => listMembers(ctx.db, key.projectId, readQuery(event, memberListQuery)));

  route('GET', '/members/lookup', (event, key) => lookupMember(ctx.db, key.projectId, readQuery(event, memberLookupQuery)));

  route('GET', '/members/:externalId', (event, key) => memberView(ctx.db, requireMember(ctx.db, key.projectId, pathParam(event, 'externalId'))));

  route('PATCH', '/members/:externalId', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(memberUpdateBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(updateMember(ctx.db, key.projectId, pathParam(event, 'externalId'), body, now)));
  });

  route('DELETE', '/members/:externalId', async (event, key, now) => {
    const rawBody = await readJson(event, { emptyAllowed: true });
    validate(emptyBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(eraseMember(ctx.db, key.projectId, pathParam(event, 'externalId'), now)));
  });

  route('GET', '/members/:externalId/export', (event, key, now) => exportMember(ctx.db, key.projectId, pathParam(event, 'externalId'), now));
}
