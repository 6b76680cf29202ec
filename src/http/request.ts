import type { IncomingMessage } from 'node:http';
import { assertBodySize, getQuery, getRouterParams, type H3Event } from 'h3';
import type * as v from 'valibot';
import { AppError, badRequest } from '../shared/errors.ts';
import { type Schema, validate } from '../shared/validate.ts';

/** Bodies above this are refused with 413 before they are fully read; every route's JSON fits in it. */
export const MAX_BODY_BYTES = 64 * 1024;

/** Objects and arrays nest at most this deep in a JSON body; real payloads stay far below. */
export const MAX_JSON_DEPTH = 32;

/** Client Closed Request, as proxies write it: nobody reads the answer, and the log says so in one info line (errors.ts). */
export const CLIENT_CLOSED = 499;
const clientClosed = () => new AppError(CLIENT_CLOSED, 'Client Closed Request', 'The connection closed before the request body was complete.');

// The connection is closed after a 413, so the rest of a huge body is never read.
const tooLarge = (limit: number) => new AppError(413, 'Payload Too Large', `The request body must be at most ${limit} bytes.`, { connection: 'close' });

/** Routes that take more than MAX_BODY_BYTES (a bulk import), by exact path: set as they are mounted. */
const largerBodies = new Map<string, number>();

/** Lets the route at `path` take bodies up to `bytes`. */
export function allowLargerBody(path: string, bytes: number): void {
  largerBodies.set(path, bytes);
}

const bodyLimit = (event: H3Event): number => largerBodies.get(event.url.pathname) ?? MAX_BODY_BYTES;

/**
 * Reads the Node request stream, stopping as soon as the body passes the limit. Straight from the
 * socket, because h3's assertBodySize wraps the request in web streams, a cost on every award.
 */
function readNodeBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    if (req.destroyed && !req.complete) {
      reject(clientClosed()); // gone before its body was asked for: no event would come
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.off('data', onData);
        req.pause();
        reject(tooLarge(limit));
      } else chunks.push(chunk);
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    // A stream error or a close before the end: the client went away mid-body ("aborted"), not a fault of ours.
    req.once('error', () => reject(clientClosed()));
    req.once('close', () => {
      if (!req.complete) reject(clientClosed());
    });
  });
}

const BODILESS_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Before routing: a GET, HEAD or OPTIONS with a body, or any body announced above the limit, is
 * refused at once, and the connection closed, so not a byte more of it is read.
 */
export function refuseUnwantedBody(event: H3Event): void {
  const length = event.req.headers.get('content-length');
  const hasBody = event.req.headers.has('transfer-encoding') || (length !== null && length !== '0');
  if (hasBody && BODILESS_METHODS.has(event.req.method)) {
    throw new AppError(413, 'Payload Too Large', `A ${event.req.method} request takes no body.`, { connection: 'close' });
  }
  const limit = bodyLimit(event);
  if (Number(length ?? 0) > limit) throw tooLarge(limit);
}

/** The body as received, within the size limit: for routes that check a signature over its bytes before parsing. */
export async function readRawBody(event: H3Event): Promise<string> {
  const limit = bodyLimit(event);
  if (Number(event.req.headers.get('content-length') ?? 0) > limit) throw tooLarge(limit);
  const node = event.runtime?.node?.req as IncomingMessage | undefined;
  if (node) return readNodeBody(node, limit);
  // Other runtimes (h3's in-memory app.request): h3's own limit on the body stream.
  assertBodySize(event, limit);
  try {
    return await event.req.text();
  } catch (error) {
    throw (error as { status?: number }).status === 413 ? tooLarge(limit) : error;
  }
}

/**
 * How deep arrays and objects nest in JSON text, counted before parsing, so a body of 60,000
 * brackets never reaches JSON.parse or the recursive code after it. Brackets inside strings do not count.
 */
function exceedsDepth(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** JSON.parse with the depth limit; a 400 naming the problem otherwise. `what` names the text ("The request body"). */
export function parseJson(text: string, what: string): unknown {
  if (exceedsDepth(text, MAX_JSON_DEPTH)) throw badRequest(`${what} nests objects or arrays more than ${MAX_JSON_DEPTH} levels deep.`);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw badRequest(`${what} is not valid JSON: ${(error as Error).message}`);
  }
}

/**
 * Reads a JSON object body. An empty body counts as `{}` where `emptyAllowed`; anything but
 * `application/json` or unparsable JSON is a 400 that says so.
 */
export async function readJson(event: H3Event, { emptyAllowed = false } = {}): Promise<unknown> {
  const text = await readRawBody(event);
  if (text.trim() === '') {
    if (emptyAllowed) return {};
    throw badRequest('The request body is empty; send a JSON object with Content-Type: application/json.');
  }
  const type = event.req.headers.get('content-type') ?? '';
  if (!/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(type)) {
    throw badRequest(`Content-Type must be application/json (got "${type || 'none'}").`);
  }
  const body = parseJson(text, 'The request body');
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw badRequest('The request body must be a JSON object.');
  }
  return body;
}

/** Validates the query string; a parameter given twice is refused rather than guessed at. */
export function readQuery<S extends Schema>(event: H3Event, schema: S): v.InferOutput<S> {
  const query = getQuery(event) as Record<string, string | string[]>;
  for (const [name, value] of Object.entries(query)) {
    if (Array.isArray(value)) throw badRequest(`Query parameter "${name}" must be given at most once.`);
  }
  return validate(schema, query, 'query');
}

/** The longest id a path can name: an external id. */
const PATH_PARAM_MAX = 255;

/**
 * A path parameter, fully decoded. h3 matched the raw segment, so an encoded slash (`a%2Fb`)
 * stays inside this one parameter; decoding it afterwards lets externalIds contain "/".
 */
export function pathParam(event: H3Event, name: string): string {
  const raw = getRouterParams(event)[name];
  if (raw === undefined) throw badRequest(`Missing path parameter "${name}"`);
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    throw badRequest(`Path parameter "${name}" is not valid percent-encoded UTF-8.`);
  }
  // No id is longer (external ids are the longest); a longer one would only be echoed by a 404.
  if (value.length > PATH_PARAM_MAX) throw badRequest(`Path parameter "${name}" must be at most ${PATH_PARAM_MAX} characters`);
  return value;
}

/**
 * The path as its routes read it, for telling two requests apart (Idempotency-Key): every segment
 * decoded, so `caf%C3%A9`, `caf%c3%a9` and `café` are one path, with only `%` and `/` encoded again,
 * so an encoded slash stays inside its segment (`a%2Fb` is not `a/b`, a path of two segments).
 */
export function canonicalPath(path: string): string {
  if (!path.includes('%')) return path;
  return path.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment).replaceAll('%', '%25').replaceAll('/', '%2F');
    } catch {
      return segment; // not UTF-8: the route answers 400 before anything is stored
    }
  }).join('/');
}
