import * as v from 'valibot';
import { adjustPoints } from '../../domain/ledger/ledger.ts';
import { listMembers } from '../../domain/members/members.ts';
import { eraseMember, exportMember } from '../../domain/members/privacy.ts';
import { memberProfile, memberTransactions } from '../../domain/members/profile.ts';
import { badRequest } from '../../shared/errors.ts';
import { adjustBody, eraseBody, memberSearch } from '../../schemas/admin.ts';
import * as admin from '../../schemas/answers/admin.ts';
import { pagination, transaction } from '../../schemas/answers/common.ts';
import * as server from '../../schemas/answers/server.ts';
import { Answer } from '../route.ts';
import type { ProjectApi } from './api.ts';
import { listAnswer, listFields, sortFields } from './lists.ts';

const MEMBER_COLUMNS = ['id', 'externalId', 'email', 'name', 'points', 'totalPointsEarned', 'level', 'levelName', 'currentStreak', 'longestStreak', 'createdAt'];
const TRANSACTION_COLUMNS = ['id', 'createdAt', 'type', 'source', 'amount', 'balance', 'actor', 'description', 'referenceId', 'expiresAt'];

/** Members: search, profile, history, adjust points, export and erase; the same domain functions as /api/v1/members. */
export function memberRoutes({ route, ctx }: ProjectApi): void {
  route('GET', '/members', {
    query: v.strictObject({ ...memberSearch, ...sortFields(['createdAt', 'points', 'totalPointsEarned']), ...listFields }), csv: true,
    responses: { 200: server.memberList },
  }, ({ projectId, query }) => listAnswer(query, {
    key: 'members', columns: MEMBER_COLUMNS,
    page: (limit, offset) => {
      const { members, pagination: page } = listMembers(ctx.db, projectId, { ...query, limit, offset });
      return { items: members, pagination: page };
    },
  }));

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
