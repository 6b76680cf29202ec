import { listMembers, lookupMember, memberView, requireMember, updateMember, upsertMember } from '../../domain/members/members.ts';
import { importBatch } from '../../domain/members/import/batch.ts';
import { eraseMember, exportMember } from '../../domain/members/privacy.ts';
import { emptyBody } from '../../schemas/common.ts';
import { IMPORT_BODY_BYTES, memberImportBody } from '../../schemas/member-import.ts';
import { memberByExternalIdQuery, memberCreateBody, memberListQuery, memberLookupQuery, memberUpdateBody } from '../../schemas/members.ts';
import { Answer } from '../route.ts';
import type { ServerApi } from './api.ts';
import * as answers from '../../schemas/answers/server.ts';

export function memberRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/members', { body: memberCreateBody, write: true, responses: { 200: answers.member, 201: answers.member } }, ({ key, body, now }) => {
    const { member, created } = upsertMember(ctx.db, key.projectId, body, now);
    return new Answer(member, created ? 201 : 200);
  });

  // Up to 1,000 members from another programme in one transaction; the batchId is the request's Idempotency-Key.
  route('POST', '/members/import', { body: memberImportBody, write: true, keyField: 'batchId', maxBodyBytes: IMPORT_BODY_BYTES, responses: { 200: answers.memberImport } },
    ({ key, body, now }) => importBatch(ctx.db, key.projectId, body, key.prefix, now));

  route('GET', '/members', { query: memberListQuery, responses: { 200: answers.memberList } }, ({ key, query }) => listMembers(ctx.db, key.projectId, query));

  route('GET', '/members/lookup', { query: memberLookupQuery, responses: { 200: answers.member } }, ({ key, query }) => lookupMember(ctx.db, key.projectId, query));

  // The member named in the query: how members whose externalId no path can address (".", "..",
  // "lookup", refused for new members) are exported and erased.
  route('DELETE', '/members/lookup', { query: memberByExternalIdQuery, body: emptyBody, optionalBody: true, write: true, responses: { 200: answers.deleted } },
    ({ key, query, now }) => eraseMember(ctx.db, key.projectId, query.externalId, now));

  route('GET', '/members/lookup/export', { query: memberByExternalIdQuery, responses: { 200: answers.memberExport } }, ({ key, query, now }) =>
    exportMember(ctx.db, key.projectId, query.externalId, now));

  route('GET', '/members/:externalId', { responses: { 200: answers.member } }, ({ key, param }) => memberView(ctx.db, requireMember(ctx.db, key.projectId, param('externalId'))));

  route('PATCH', '/members/:externalId', { body: memberUpdateBody, write: true, responses: { 200: answers.member } }, ({ key, body, param, now }) =>
    updateMember(ctx.db, key.projectId, param('externalId'), body, now));

  route('DELETE', '/members/:externalId', { body: emptyBody, optionalBody: true, write: true, responses: { 200: answers.deleted } }, ({ key, param, now }) =>
    eraseMember(ctx.db, key.projectId, param('externalId'), now));

  route('GET', '/members/:externalId/export', { responses: { 200: answers.memberExport } }, ({ key, param, now }) => exportMember(ctx.db, key.projectId, param('externalId'), now));
}
