import { issueKey, listKeys, revokeKey, type ApiKeyInfo } from '../../domain/project/api-keys.ts';
import { addMs, DAY_MS } from '../../shared/clock.ts';
import { emptyBody } from '../../schemas/common.ts';
import { keyCreateBody } from '../../schemas/admin.ts';
import * as admin from '../../schemas/answers/admin.ts';
import { created } from '../route.ts';
import type { AppContext } from '../context.ts';
import type { ProjectApi } from './api.ts';
import { formatQuery, tableAnswer } from './lists.ts';

const KEY_COLUMNS = ['id', 'type', 'prefix', 'createdAt', 'expiresAt', 'revokedAt', 'lastUsedAt'];

/** A key as the admin shows it: never the key itself, only its display prefix. */
const keyView = (ctx: AppContext, { id, type, prefix, createdAt, expiresAt, revokedAt }: ApiKeyInfo) =>
  ({ id, type, prefix, createdAt, expiresAt, revokedAt, lastUsedAt: ctx.guard.keyLastUsed(id) });

/** API keys (owners only, reading included): the full key is in the answer that creates it, and nowhere else. */
export function keyRoutes({ route, ctx }: ProjectApi): void {
  route('GET', '/keys', { role: 'owner', query: formatQuery, csv: true, responses: { 200: admin.keyList } }, ({ projectId, query }) =>
    tableAnswer(query, 'keys', KEY_COLUMNS, listKeys(ctx.db, projectId).map((key) => keyView(ctx, key))));

  route('POST', '/keys', { body: keyCreateBody, write: true, secret: true, responses: { 201: admin.keyCreated } }, ({ projectId, body, now }) => {
    const { key: secret, ...info } = issueKey(ctx.db, {
      projectId, type: body.type, ...(body.expiresInDays !== undefined ? { expiresAt: addMs(now, body.expiresInDays * DAY_MS) } : {}),
    }, now);
    return created({ key: keyView(ctx, info), secret });
  });

  route('DELETE', '/keys/:keyId', { body: emptyBody, optionalBody: true, write: true, responses: { 200: admin.keyInfo } }, ({ projectId, param, now }) =>
    keyView(ctx, revokeKey(ctx.db, param('keyId'), now, projectId)));
}
