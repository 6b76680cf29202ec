import type { H3, H3Event, HTTPMethod } from 'h3';
import * as v from 'valibot';
import { badRequest } from '../shared/errors.ts';
import { readSnapshot } from '../db/transaction.ts';
import { once, requestFingerprint, type StoredResponse } from '../domain/ledger/idempotency.ts';
import type { AppContext } from './context.ts';
import { validate } from '../shared/validate.ts';
import { allowLargerBody, pathParam, readJson, readQuery, readRawBody } from './request.ts';
import { refuseOtherMethods } from './errors.ts';
import { idempotencyKey } from '../schemas/common.ts';
import { noteProject } from './request-log.ts';

type Schema = v.GenericSchema<unknown, unknown>;
/** An answer that is not JSON: a page (with its content type) or a redirect (no body). */
export interface OtherReply { description: string; contentType?: string }
export type Reply = Schema | OtherReply;
type Output<S> = S extends Schema ? v.InferOutput<S> : undefined;

/** The `:name` segments of a route path; any name where the path is not a literal (the catalog's). */
export type ParamsOf<P extends string> = string extends P ? string
  : P extends `${string}:${infer Name}/${infer Rest}` ? Name | ParamsOf<Rest>
  : P extends `${string}:${infer Name}` ? Name : never;

/** An answer with its own status (201), or an award's answer, stored as a reference to its ledger row. */
export class Answer implements StoredResponse {
  constructor(readonly body: unknown, readonly status = 200, readonly storeAs?: 'award') {}
}
export const created = (body: unknown) => new Answer(body, 201);

/** What a handler gets: the caller (the surface's), the validated body and query, path parameters and the time. */
export type Input<C, P extends string, B, Q> = C & {
  event: H3Event;
  now: Date;
  body: Output<B>;
  /** The body as received, where the route asks for it (`rawBody`): signed deliveries check their signature over it. */
  raw: string;
  query: Output<Q>;
  /** A path parameter, fully decoded (400 when its percent-encoding is not UTF-8). */
  param: (name: ParamsOf<P>) => string;
};

export interface RouteOptions<B, Q, I> {
  /** The JSON object body: read within the size limit, validated; a 400 names every offending field. */
  body?: B;
  /** An empty body counts as `{}`: for routes whose body is optional or empty. */
  optionalBody?: true;
  /** Bodies up to this many bytes, where a route takes more than every other's MAX_BODY_BYTES (a bulk import). */
  maxBodyBytes?: number;
  /** The body field that is the request's Idempotency-Key (default `idempotencyKey`): a bulk import's `batchId`. */
  keyField?: string;
  /** Read the body as text without parsing it (`input.raw`): for signed deliveries, whose handler checks the signature, then parses. */
  rawBody?: true;
  query?: Q;
  /**
   * The handler runs in one transaction (the next group commit), so it is synchronous. A write that
   * is not a GET changes something for its caller: it honours Idempotency-Key and counts as a change
   * in the rate limits.
   */
  write?: true;
  /** The answer carries a secret, which is never stored for a replay: an Idempotency-Key is refused. */
  secret?: true;
  /**
   * What the route answers, by status (200, 201...): the OpenAPI document describes each body with
   * it. Errors need not be listed: every route can answer `{error, message}`.
   */
  responses?: Partial<Record<number, Reply>>;
  /** Error statuses this route answers beyond every route's (409 outside a write; 502 when a store it calls is down). */
  errors?: number[];
  /** Work around the transaction: checks that wait on the network, limits that count failures, caches to drop after. */
  around?: (input: I, run: () => Promise<unknown>) => Promise<unknown>;
}

/** A mounted route, as the routes table and the surface's checks see it. */
export interface MountedRoute {
  surface: string;
  method: HTTPMethod;
  /** The full path, surface prefix included. */
  path: string;
  body: Schema | undefined;
  /** An empty body counts as `{}`. */
  optionalBody: boolean;
  query: Schema | undefined;
  responses: Partial<Record<number, Reply>>;
  errors: number[];
  write: boolean;
  /** A write that is not a GET: Idempotency-Key is honoured (or refused where `secret`). */
  changes: boolean;
}

/**
 * What makes one HTTP surface (the server API, the widget API): its prefix, how a request is
 * authenticated and answered, whose Idempotency-Keys a caller shares, and what its paths answer
 * besides their routes (405s, preflights).
 */
export interface Surface<C, X> {
  name: string;
  base: string;
  /** Authenticates and applies the surface's checks and limits, runs `next` with the caller, and shapes errors the surface's way. */
  serve(event: H3Event, route: MountedRoute & X, next: (caller: C) => Promise<unknown>): unknown;
  /** The project whose keys a caller's Idempotency-Key is among; and the member, where keys are a shopper's own. */
  keyScope(caller: C): { projectId: string; externalId?: string };
  /** After the routes: what the surface's paths answer to other methods. */
  finish(app: H3, routes: MountedRoute[]): void;
}

export type Route<C, X> = <P extends string, B extends Schema | undefined = undefined, Q extends Schema | undefined = undefined>(
  method: HTTPMethod,
  path: P,
  options: RouteOptions<B, Q, Input<C, P, B, Q>> & X,
  handler: (input: Input<C, P, B, Q>) => unknown,
) => void;

/** What a resource file gets to declare its routes. */
export interface Api<C, X> {
  ctx: AppContext;
  route: Route<C, X>;
}

export type Resource<C, X> = (api: Api<C, X>) => void;

/** A surface's `finish` where nothing else is needed: 405 for the methods a path does not serve. */
export function refuseUnservedMethods(app: H3, routes: MountedRoute[]): void {
  for (const [path, methods] of methodsByPath(routes)) refuseOtherMethods(app, path, methods);
}

/** The methods each path serves, in the order they were mounted. */
export function methodsByPath(routes: MountedRoute[]): Map<string, HTTPMethod[]> {
  const paths = new Map<string, HTTPMethod[]>();
  for (const { path, method } of routes) paths.set(path, [...(paths.get(path) ?? []), method]);
  return paths;
}

const stored = (result: unknown): StoredResponse => (result instanceof Answer ? result : { status: 200, body: result });

/** Sends an answer: status, replay marker, body. */
function respond(event: H3Event, response: StoredResponse & { replayed?: boolean }): unknown {
  event.res.status = response.status;
  if (response.replayed) event.res.headers.set('idempotent-replayed', 'true');
  return response.body;
}

/** The Idempotency-Key of a request: the header, or the body's key field (`idempotencyKey`) where a route's schema has one. */
function keyOf(event: H3Event, body: unknown, name = 'idempotencyKey'): string | undefined {
  const header = event.req.headers.get('idempotency-key');
  if (header !== null && !v.is(idempotencyKey, header)) {
    throw badRequest('The Idempotency-Key header must be 1 to 255 printable characters.');
  }
  const field = (body as Record<string, unknown> | undefined)?.[name];
  const bodyKey = typeof field === 'string' ? field : undefined;
  if (header !== null && bodyKey !== undefined && header !== bodyKey) {
    throw badRequest(`The Idempotency-Key header and the "${name}" field differ; send one key.`);
  }
  return header ?? bodyKey;
}

/**
 * Mounts a surface's resources: each route reads its body within the limits, validates body and
 * query, runs its handler (in one transaction with Idempotency-Key where it writes) and answers
 * JSON with the handler's status. Returns the routes, for the table.
 */
export function mountSurface<C extends object, X>(app: H3, ctx: AppContext, surface: Surface<C, X>, resources: Resource<C, X>[]): MountedRoute[] {
  const routes: MountedRoute[] = [];
  const route = <P extends string, B extends Schema | undefined, Q extends Schema | undefined>(
    method: HTTPMethod, path: P, options: RouteOptions<B, Q, Input<C, P, B, Q>> & X, handler: (input: Input<C, P, B, Q>) => unknown,
  ): void => {
    const mounted: MountedRoute & X = {
      ...options,
      surface: surface.name,
      method,
      path: `${surface.base}${path}`,
      body: options.body,
      optionalBody: options.optionalBody === true,
      query: options.query,
      responses: options.responses ?? {},
      errors: options.errors ?? [],
      write: options.write === true,
      changes: options.write === true && method !== 'GET',
    };
    routes.push(mounted);
    if (options.maxBodyBytes) allowLargerBody(mounted.path, options.maxBodyBytes);
    app.on(method, mounted.path, (event) => surface.serve(event, mounted, async (caller) => {
      noteProject(event, surface.keyScope(caller).projectId);
      const now = ctx.clock();
      const rawBody = options.body ? await readJson(event, { emptyAllowed: options.optionalBody }) : undefined;
      const body = options.body ? validate(options.body, rawBody) : undefined;
      const raw = options.rawBody ? await readRawBody(event) : '';
      const query = options.query ? readQuery(event, options.query) : undefined;
      if (options.secret && event.req.headers.has('idempotency-key')) {
        throw badRequest('Idempotency-Key is not accepted here: the answer carries a secret, which is never stored for a replay.');
      }
      // Added onto the caller (a fresh object per request) rather than spread into a new one: with
      // callers of several shapes, `{ ...caller, … }` took V8's slow path, about a tenth of an award's CPU.
      const input = Object.assign(caller, { event, now, body, raw, query, param: (name: string) => pathParam(event, name) }) as Input<C, P, B, Q>;
      const run = async () => {
        if (!mounted.write) {
          const result = await readSnapshot(ctx.db, () => handler(input));
          return result instanceof Answer ? respond(event, result) : result;
        }
        const key = mounted.changes ? keyOf(event, body, options.keyField) : undefined;
        let awarded = false;
        const perform = () => {
          const response = stored(handler(input));
          awarded = response.storeAs === 'award';
          return response;
        };
        const scope = key === undefined ? undefined
          : { ...surface.keyScope(caller), key, fingerprint: requestFingerprint(method, event.url.pathname, rawBody) };
        const response = await ctx.write(() => (scope ? once(ctx.db, scope, now, perform) : perform()));
        // Counted once committed, and not for a replay (perform did not run).
        if (awarded) ctx.metrics.award();
        return respond(event, response);
      };
      return options.around ? options.around(input, run) : run();
    }), { meta: { route: mounted } });
  };
  for (const resource of resources) resource({ ctx, route });
  surface.finish(app, routes);
  return routes;
}
