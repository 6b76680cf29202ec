import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { H3Event } from 'h3';
import type { Logger } from '../shared/log.ts';
import { CLIENT_CLOSED } from './request.ts';

/** What the app learns of a request as it handles it: which route matched, and for which project. */
interface Note {
  route: string | null;
  projectId: string | null;
}

// Keyed by the Node request: the one object both the Node listener and the h3 event can reach.
const notes = new WeakMap<object, Note>();

function noteOf(event: H3Event): Note | undefined {
  const req = event.runtime?.node?.req;
  return req ? notes.get(req) : undefined;
}

/** Records the matched route's pattern (the app's first middleware calls it). */
export function noteRoute(event: H3Event): void {
  const note = noteOf(event);
  if (note) note.route = event.context.matchedRoute?.route ?? null;
}

/** Records the caller's project, once a surface has authenticated it. */
export function noteProject(event: H3Event, projectId: string): void {
  const note = noteOf(event);
  if (note && projectId !== '') note.projectId = projectId;
}


/**
 * Wraps the Node listener: each request gets an id (answered as `X-Request-Id`, to quote in a
 * support request), and when its answer is sent (or the client goes away) one line goes to the log
 * with method, route pattern, status, duration, project and request id. Without `log.request` (the
 * request log is off) the listener is returned as it is: nothing is added to a request.
 */
export function withRequestLog(log: Logger, listener: (req: IncomingMessage, res: ServerResponse) => unknown) {
  const write = log.request;
  if (!write) return listener;
  return (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    const requestId = randomUUID();
    const note: Note = { route: null, projectId: null };
    notes.set(req, note);
    res.setHeader('x-request-id', requestId);
    res.once('close', () => {
      write({
        method: req.method ?? '-',
        route: note.route,
        status: res.writableFinished ? res.statusCode : CLIENT_CLOSED,
        durationMs: Math.round((performance.now() - started) * 10) / 10,
        projectId: note.projectId,
        requestId,
      });
    });
    return listener(req, res);
  };
}
