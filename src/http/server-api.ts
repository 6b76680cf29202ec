import type { H3, H3Event, HTTPMethod } from 'h3';
import * as v from 'valibot';
import { badRequest } from '../domain/errors.ts';
import { once, requestFingerprint, type StoredResponse } from '../domain/idempotency.ts';
import type { AuthenticatedKey } from '../domain/keys.ts';
import { adjustPoints, pointsSummary } from '../domain/ledger.ts';
import { listMembers, lookupMember, requireMember, toMember, updateMember, upsertMember } from '../domain/members.ts';
import { eraseMember, exportMember } from '../domain/privacy.ts';
import { requireSecretKey } from './auth.ts';
import { methodNotAllowed } from './errors.ts';
import type { AppContext } from './context.ts';
import { pathParam, readJson, readQuery, validate } from './request.ts';
import {
  emptyBody, idempotencyKey, memberCreateBody, memberListQuery, memberLookupQuery, memberUpdateBody, pointsBody, pointsQuery,
} from './schemas.ts';

const STANDARD_METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

type Handler = (event: H3Event, key: AuthenticatedKey, now: Date) => unknown;

/** Sends a stored response: status, replay marker, body. */
function respond(event: H3Event, response: StoredResponse & { replayed?: boolean }): unknown {
  event.res.status = response.status;
  if (response.replayed) event.res.headers.set('idempotent-replayed', 'true');
  return response.body;
}

/**
 * Runs a mutation in the next group commit. With an Idempotency-Key (header, or the body field
 * where a route has one) the key is checked and recorded in that same transaction.
 */
async function mutate(
  event: H3Event,
  ctx: AppContext,
  key: AuthenticatedKey,
  now: Date,
  request: { rawBody: unknown; bodyKey?: string | undefined },
  perform: () => StoredResponse,
): Promise<unknown> {
  const header = event.req.headers.get('idempotency-key');
  if (header !== null && !v.is(idempotencyKey, header)) {
    throw badRequest('The Idempotency-Key header must be 1 to 255 printable characters.');
  }
  if (header !== null && request.bodyKey !== undefined && header !== request.bodyKey) {
    throw badRequest('The Idempotency-Key header and the "idempotencyKey" field differ; send one key.');
  }
  const idempotency = header ?? request.bodyKey;
  if (idempotency === undefined) return respond(event, await ctx.write(perform));
  const scope = {
    projectId: key.projectId,
    key: idempotency,
    fingerprint: requestFingerprint(event.req.method, event.url.pathname, request.rawBody),
  };
  return respond(event, await ctx.write(() => once(ctx.db, scope, now, perform)));
}

/** The server REST API under /api/v1: secret key required on every route. */
export function mountServerApi(app: H3, ctx: AppContext): void {
  const methodsByPath = new Map<string, HTTPMethod[]>();
  const route = (method: HTTPMethod, path: string, handler: Handler) => {
    methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), method]);
    app.on(method, `/api/v1${path}`, (event) => handler(event, requireSecretKey(event, ctx), ctx.clock()));
  };
  const ok = (body: unknown): StoredResponse => ({ status: 200, body });

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

  route('GET', '/members/:externalId', (event, key) => toMember(requireMember(ctx.db, key.projectId, pathParam(event, 'externalId'))));

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

  route('POST', '/members/:externalId/points', async (event, key, now) => {
    const rawBody = await readJson(event);
    const { idempotencyKey: bodyKey, ...adjustment } = validate(pointsBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody, bodyKey }, () =>
      ok(adjustPoints(ctx.db, key.projectId, pathParam(event, 'externalId'), adjustment, key.prefix, now)));
  });

  route('GET', '/members/:externalId/points', (event, key) =>
    pointsSummary(ctx.db, key.projectId, pathParam(event, 'externalId'), readQuery(event, pointsQuery)));

  // Any other method on a known path is a 405 naming the ones it serves (h3 answers HEAD with GET).
  for (const [path, methods] of methodsByPath) {
    const allowed: HTTPMethod[] = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
    for (const method of STANDARD_METHODS.filter((m) => !allowed.includes(m))) {
      app.on(method, `/api/v1${path}`, () => {
        throw methodNotAllowed(method, allowed);
      });
    }
  }
}
