import type { AuthenticatedKey } from '../../domain/project/api-keys.ts';
import { requireSecretKey } from '../auth.ts';
import type { AppContext } from '../context.ts';
import { refuseUnservedMethods, type Api, type Surface } from '../route.ts';

/** Who calls the server API: a live secret key of one project. */
export interface ServerCaller {
  key: AuthenticatedKey;
}

/** What a resource file of the server API gets: the context and a secret-key-checked `route`. */
export type ServerApi = Api<ServerCaller, object>;

/**
 * /api/v1: the secret key required on every route and limited per key; any other method on a known
 * path is answered 405 naming the ones it serves (h3 answers HEAD with GET).
 */
export function serverSurface(ctx: AppContext): Surface<ServerCaller, object> {
  return {
    name: 'server API',
    base: '/api/v1',
    vary: 'Authorization, X-API-Key',
    serve(event, _route, next) {
      const key = ctx.guard.authAttempt(event, () => requireSecretKey(event, ctx));
      ctx.guard.limitApiKey(key.keyId, key.projectId);
      return next({ key });
    },
    keyScope: ({ key }) => ({ projectId: key.projectId }),
    // Every change a secret key makes is in the project's audit log, under the key's id (docs/admin.md).
    auditActor: ({ key }) => ({ type: 'api', id: key.keyId, label: key.prefix }),
    finish: refuseUnservedMethods,
  };
}
