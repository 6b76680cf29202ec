import { HTTPError, type H3, type H3Event, type HTTPMethod } from 'h3';
import { StorageError } from '../db/group-commit.ts';
import { AppError } from '../shared/errors.ts';
import type { Logger } from '../shared/log.ts';
import { CLIENT_CLOSED } from './request.ts';

const STATUS_TITLES: Record<number, string> = {
  400: 'Bad Request',
  404: 'Not Found',
  405: 'Method Not Allowed',
  413: 'Payload Too Large',
};

/** "POST", "GET or HEAD", "POST, GET or HEAD". */
const oneOf = (methods: string[]) => (methods.length === 1 ? methods[0]! : `${methods.slice(0, -1).join(', ')} or ${methods.at(-1)}`);

/** A known path asked with a method it does not serve; `Allow` lists the ones it does. */
export const methodNotAllowed = (method: string, allowed: string[]) =>
  new AppError(405, 'Method Not Allowed', `${method} is not allowed here; use ${oneOf(allowed)}.`, { allow: allowed.join(', ') });

const STANDARD_METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/** Answers every method a known path does not serve with 405 (h3 answers HEAD with GET). */
export function refuseOtherMethods(app: H3, path: string, methods: HTTPMethod[]): void {
  const allowed: HTTPMethod[] = methods.includes('GET') ? [...methods, 'HEAD'] : methods;
  for (const method of STANDARD_METHODS.filter((m) => !allowed.includes(m))) {
    app.on(method, path, () => {
      throw methodNotAllowed(method, allowed);
    }, { meta: { answers: 405 } });
  }
}

function isSqliteBusy(error: unknown): boolean {
  const code = (error as { code?: string } | undefined)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED';
}

/** Maps anything thrown while handling a request to the one error shape. */
function toAppError(thrown: unknown, log: Logger, event: H3Event | undefined): AppError {
  // h3 wraps errors thrown by handlers in an "unhandled" HTTPError; the original is the cause.
  const error = HTTPError.isError(thrown) && thrown.unhandled ? thrown.cause : thrown;
  if (error instanceof AppError) {
    // Never a path (it may hold an externalId): the route's pattern.
    if (error.status === CLIENT_CLOSED) log.info(`${event?.req.method ?? '-'} ${event?.context.matchedRoute?.route ?? '(no route)'}: ${lowerFirst(error.message).replace(/\.$/, '')}`);
    return error;
  }
  if (error instanceof StorageError || isSqliteBusy(error)) {
    log.error('write failed', error instanceof StorageError ? error.cause : error);
    return new AppError(503, 'Service Unavailable', 'The database is busy or failing; nothing was saved. Retry shortly.', { 'retry-after': '1' });
  }
  if (HTTPError.isError(error) && error.status < 500) {
    const title = STATUS_TITLES[error.status] ?? 'Bad Request';
    if (error.status === 404) return new AppError(404, title, 'No such endpoint. The server API lives under /api/v1; see docs/api.md.');
    // h3 rejects malformed percent-encoding in the path before routing.
    if (error.status === 400 && error.message === 'Bad Request') return new AppError(400, title, 'The request URL is not valid; check its percent-encoding.');
    return new AppError(error.status, title, error.message || title);
  }
  log.error('unhandled error', error);
  return new AppError(500, 'Server Error', 'An internal error occurred. It has been logged; please report it if it persists.');
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The `{error, message}` answer to anything thrown; `event` names the route in what is logged. */
export function errorResponse(thrown: unknown, log: Logger, event?: H3Event): Response {
  const error = toAppError(thrown, log, event);
  return new Response(JSON.stringify({ error: error.error, message: error.message, ...error.details }), {
    status: error.status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...error.headers },
  });
}
