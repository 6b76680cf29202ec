import * as v from 'valibot';
import { adjustPoints } from '../../domain/ledger/ledger.ts';
import { allMembers, listMembers } from '../../domain/members/members.ts';
import { eraseMember, exportMember } from '../../domain/members/privacy.ts';
import { memberProfile, memberTransactions } from '../../domain/members/profile.ts';
import { badRequest } from '../../shared/errors.ts';
import { adjustBody, eraseBody, memberSearch } from '../../schemas/admin.ts';
import { text } from '../../schemas/common.ts';
import { MEMBER_PAGE_REACH } from '../../schemas/members.ts';
import * as admin from '../../schemas/answers/admin.ts';
import { pagination, transaction } from '../../schemas/answers/common.ts';
import * as server from '../../schemas/answers/server.ts';
import { Answer } from '../route.ts';
import type { ProjectApi } from './api.ts';
import { csvResponse, listAnswer, listFields, MAX_EXPORT_ROWS, sortFields } from './lists.ts';

const MEMBER_COLUMNS = ['id', 'externalId', 'email', 'name', 'points', 'totalPointsEarned', 'level', 'levelName', 'currentStreak', 'longestStreak', 'createdAt'];
const TRANSACTION_COLUMNS = ['id', 'createdAt', 'type', 'source', 'amount', 'balance', 'actor', 'description', 'referenceId', 'expiresAt'];

const memberListQuery = v.pipe(
  v.strictObject({ ...memberSearch, cursor: v.optional(text(200)), ...sortFields(['createdAt', 'points', 'totalPointsEarned']), ...listFields }),
  v.check((q) => q.format === 'csv' || q.offset + q.limit <= MEMBER_PAGE_REACH,
    `offset + limit must be at most ${MEMBER_PAGE_REACH}: page on with pagination.next (the cursor, newest first), or narrow the search`),
  v.check((q) => q.cursor === undefined || (q.search === undefined && q.offset === 0 && (q.sort ?? 'createdAt') === 'createdAt' && q.order !== 'asc'),
    'cursor continues a listing without search, newest first: give it without search, offset or another sort'),
);

/** Members: search, profile, history, adjust points, export and erase; the same domain functions as /api/v1/members. */
export function memberRoutes({ route, ctx }: ProjectApi): void {
  // Pages as /api/v1/members do (docs/api.md, "Paging members"): by offset within the first 10,000, newest first on by cursor;
  // the CSV has every member the search matches, however deep.
  route('GET', '/members', { query: memberListQuery, csv: true, responses: { 200: server.memberList } }, ({ projectId, query }) => {
    if (query.format === 'csv') return csvResponse('members', MEMBER_COLUMNS, allMembers(ctx.db, projectId, query, MAX_EXPORT_ROWS));
    const { members, pagination: page } = listMembers(ctx.db, projectId, query);
    return { members, pagination: page };
  });

  route('GET', '/members/:externalId', { responses: { 200: admin.memberProfile } }, ({ projectId, param }) => memberProfile(ctx.db, projectId, param('externalId')));

  route('GET', '/members/:externalId/transactions', {
    query: v.strictObject(listFields), csv: true, responses: { 200: v.object({ transactions: v.array(transaction), pagination }) },
  }, ({ projectId, param, query }) => listAnswer(query, {
    key: 'transactions', columns: TRANSACTION_COLUMNS,
    page: (limit, offset) => {
      const { transactions, pagination: page } = memberTransactions(ctx.db, projectId, param('externalId'), { limit, offset });
      return { items: transactions, pagination: page };
    },
  }));

  // One ledger posting with the operator's reason; the form's Idempotency-Key makes a double click post once.
  route('POST', '/members/:externalId/points', { body: adjustBody, write: true, role: 'staff', responses: { 200: server.award } }, ({ projectId, operator, body, param, now }) =>
    new Answer(adjustPoints(ctx.db, projectId, param('externalId'), { amount: body.amount, description: body.reason }, `admin:${operator.id}`, now), 200, 'award'));

  route('DELETE', '/members/:externalId', { body: eraseBody, write: true, role: 'staff', responses: { 200: server.deleted } }, ({ projectId, body, param, now }) => {
    if (body.confirm !== param('externalId')) throw badRequest('"confirm" must be the member\'s externalId, typed again: erasing cannot be undone.');
    return eraseMember(ctx.db, projectId, param('externalId'), now);
  });

  route('GET', '/members/:externalId/export', { responses: { 200: server.memberExport } }, ({ projectId, param, event, now }) => {
    const data = exportMember(ctx.db, projectId, param('externalId'), now);
    event.res.headers.set('content-disposition', `attachment; filename="member-${data.member.id}.json"`);
    return data;
  });
}
