import * as v from 'valibot';
import { auditPeriod, listAudit } from '../../domain/audit/audit-log.ts';
import { auditFilter } from '../../schemas/admin.ts';
import * as admin from '../../schemas/answers/admin.ts';
import type { ProjectApi } from './api.ts';
import { listAnswer, listFields } from './lists.ts';

const AUDIT_COLUMNS = ['id', 'at', 'actor.type', 'actor.id', 'actor.label', 'action', 'target', 'summary'];

/** The project's audit log: every change by an operator, the CLI or a secret key, filtered, as JSON or CSV. */
export function auditRoutes({ route, ctx }: ProjectApi): void {
  route('GET', '/audit', { query: v.strictObject({ ...auditFilter, ...listFields }), csv: true, responses: { 200: admin.auditList } }, ({ projectId, query }) => {
    const filter = { actor: query.actor, action: query.action, target: query.target, ...auditPeriod(ctx.db, projectId, query) };
    return listAnswer(query, {
      key: 'entries', file: 'audit', columns: AUDIT_COLUMNS,
      page: (limit, offset) => {
        const { entries, pagination } = listAudit(ctx.db, projectId, filter, { limit, offset });
        return { items: entries, pagination };
      },
    });
  });
}
