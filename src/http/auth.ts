import type { H3Event } from 'h3';
import { AppError } from '../shared/errors.ts';
import { authenticateKey, type AuthenticatedKey } from '../domain/project/api-keys.ts';
import type { AppContext } from './context.ts';

/** The key from `Authorization: Bearer …`, or else `X-API-Key`. */
function presentedKey(event: H3Event): string | undefined {
  const authorization = event.req.headers.get('authorization');
  if (authorization !== null) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) throw new AppError(401, 'Invalid API key', 'The Authorization header must be "Bearer <secret key>".');
    return match[1];
  }
  return event.req.headers.get('x-api-key') ?? undefined;
}

/** Server API calls need a live secret key; a publishable key is for the widget only. */
export function requireSecretKey(event: H3Event, ctx: AppContext): AuthenticatedKey {
  const key = authenticateKey(ctx.db, presentedKey(event), ctx.clock());
  if (key.type !== 'secret') {
    throw new AppError(403, 'Insufficient permissions', 'This is a publishable key (pk_…), which only initialises the widget. Server API calls need a secret key (sk_…).');
  }
  return key;
}
