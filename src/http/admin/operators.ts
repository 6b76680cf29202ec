import { inviteOperator, projectOperators, removeFromProject, setOperatorRole } from '../../domain/operators/operators.ts';
import { emptyBody } from '../../schemas/common.ts';
import { operatorInviteBody, operatorRoleBody } from '../../schemas/admin.ts';
import * as admin from '../../schemas/answers/admin.ts';
import * as server from '../../schemas/answers/server.ts';
import type { AppContext } from '../context.ts';
import { created } from '../route.ts';
import type { ProjectApi } from './api.ts';
import { formatQuery, tableAnswer } from './lists.ts';

const OPERATOR_COLUMNS = ['id', 'email', 'name', 'role', 'pending', 'totpEnabled', 'lastSignInAt', 'invitedAt'];

/** Where an invite's token is opened: the admin's page that asks for a password. */
export const inviteUrl = (ctx: AppContext, token: string) => `${ctx.publicUrl()}/admin/invite/${token}`;

/** The project's operators: invite (a one-time link), change a role, remove. Their sessions end with a new role or removal. */
export function operatorRoutes({ route, ctx }: ProjectApi): void {
  route('GET', '/operators', { query: formatQuery, csv: true, responses: { 200: admin.operatorList } }, ({ projectId, query }) =>
    tableAnswer(query, 'operators', OPERATOR_COLUMNS, projectOperators(ctx.db, projectId)));

  // The link is a secret shown once: never kept for a replay.
  route('POST', '/operators', { body: operatorInviteBody, write: true, secret: true, responses: { 201: admin.operatorInvited } }, ({ projectId, body, now }) => {
    const { operator, token } = inviteOperator(ctx.db, { email: body.email, role: body.role, projectId }, now);
    return created({ operator, inviteUrl: token === null ? null : inviteUrl(ctx, token) });
  });

  route('PATCH', '/operators/:operatorId', { body: operatorRoleBody, write: true, responses: { 200: admin.operator } }, ({ projectId, body, param }) =>
    setOperatorRole(ctx.db, projectId, param('operatorId'), body.role));

  route('DELETE', '/operators/:operatorId', { body: emptyBody, optionalBody: true, write: true, responses: { 200: server.deleted } }, ({ projectId, param }) =>
    removeFromProject(ctx.db, projectId, param('operatorId')));
}

