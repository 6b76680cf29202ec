import type { H3, H3Event, HTTPMethod } from 'h3';
import * as v from 'valibot';
import { badRequest } from '../../shared/errors.ts';
import { once, requestFingerprint, type StoredResponse } from '../../domain/ledger/idempotency.ts';
import type { AuthenticatedKey } from '../../domain/project/api-keys.ts';
import { requireSecretKey } from '../auth.ts';
import type { AppContext } from '../context.ts';
import { refuseOtherMethods } from '../errors.ts';
import { idempotencyKey } from '../../schemas/common.ts';

export type Handler = (event: H3Event, key: AuthenticatedKey, now: Date) => unknown;

/** What a resource file gets to declare its routes: the context and a secret-key-checked `route`. */
export interface ServerApi {
  ctx: AppContext;
  route(method: HTTPMethod, path: string, handler: Handler): void;
}

export const ok = (body: unknown): StoredResponse => ({ status: 200, body });
export const created = (body: unknown): StoredResponse => ({ status: 201, body });

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
export async function mutate(
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

/**
 * Mounts resources under /api/v1 with the secret key required on every route, then answers any
 * other method on a known path with 405 naming the ones it serves (h3 answers HEAD with GET).
 */
export function mountResources(app: H3, ctx: AppContext, resources: ((api: ServerApi) => void)[]): void {
  const methodsByPath = new Map<string, HTTPMethod[]>();
  const api: ServerApi = {
    ctx,
    route(method, path, handler) {
      methodsByPath.set(path, [...(methodsByPath.get(path) ?? []), method]);
      app.on(method, `/api/v1${path}`, (event) => {
        const key = ctx.guard.authAttempt(event, () => requireSecretKey(event, ctx));
        ctx.guard.limitApiKey(key.keyId, key.projectId);
        return handler(event, key, ctx.clock());
      });
    },
  };
  for (const mount of resources) mount(api);
  for (const [path, methods] of methodsByPath) refuseOtherMethods(app, `/api/v1${path}`, methods);
}
