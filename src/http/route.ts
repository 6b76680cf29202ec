import type { H3, H3Event, HTTPMethod } from 'h3';
import * as v from 'valibot';
import { badRequest } from '../shared/errors.ts';
import { readSnapshot } from '../db/transaction.ts';
import { once, requestFingerprint, type KeyScope, type StoredResponse } from '../domain/ledger/idempotency.ts';
import { recordAudit, type AuditActor } from '../domain/audit/audit-log.ts';
import { pickLike, summarize } from '../domain/audit/summary.ts';
import type { AppContext } from './context.ts';
import { validate } from '../shared/validate.ts';
import { allowLargerBody, canonicalPath, pathParam, readJson, readQuery, readRawBody } from './request.ts';
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
  /** With `?format=csv` the route answers its rows as text/csv instead of JSON (the admin's lists). */
  csv?: true;
  /**
   * A shop's server acting for a shopper (an award, an event, a claim, a play): the ledger and the
   * event log are its record, each posting naming the key, so it writes no audit entry (a second
   * row per award, for what the ledger already says).
   */
  forShopper?: true;
  /** Work around the transaction: checks that wait on the network, limits that count failures, caches to drop after. */
  around?: (input: I, run: () => Promise<unknown>) => Promise<unknown>;
  /**
   * The rest of the caller's authentication, where the surface could not finish it before the body
   * was read (a signature over the raw body): runs before any Idempotency-Key lookup, so a stored
   * answer is never replayed to, nor a used key revealed to, a request that is not signed.
   */
  verify?: (input: I) => void;
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
  /** Also answers text/csv (`?format=csv`). */
  csv?: boolean;
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
  /** The request headers its answers depend on (its credentials), answered as `Vary` beside `Cache-Control: no-store`. */
  vary?: string;
  /** Authenticates and applies the surface's checks and limits, runs `next` with the caller, and shapes errors the surface's way. */
  serve(event: H3Event, route: MountedRoute & X, next: (caller: C) => Promise<unknown>): unknown;
  /**
   * Where a caller's Idempotency-Keys live: their project; the member, where keys are a shopper's
   * own; and a namespace for every surface but the server API (the admin's: each operator's own),
   * so one surface's keys never meet another's (the bot's deliveries and the shop's API calls share
   * a project, not their keys). `keys: false`: the surface keeps none (its writes are safe to
   * repeat), the header is accepted and not used.
   */
  keyScope(caller: C): Omit<KeyScope, 'key'> & { keys?: false };
  /** Who the audit log names for the caller's changes (the server API's key, the admin's operator); none for shoppers, stores and bots. */
  auditActor?(caller: C): AuditActor | undefined;
  /**
   * A repeat of a write whose answer carries a secret (an Idempotency-Key the UI sends with every
   * form) answers 409 instead of the 400 that refuses the header: the secret is never stored.
   */
  secretsOnce?: true;
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

/**
 * Adds request header names to the answer's `Vary`, on the Node response where there is one: a
 * header set through h3 sends every answer down its slower path, which copies the headers into a
 * new Headers object (4-8 µs each in a micro-benchmark on a shared machine; not measured end to end).
 */
export function addVary(event: H3Event, names: string): void {
  const res = event.runtime?.node?.res;
  if (!res) {
    event.res.headers.append('vary', names);
    return;
  }
  const current = res.getHeader('vary');
  res.setHeader('vary', current === undefined ? names : `${String(current)}, ${names}`);
}

/** What a deleted thing was, for its audit entry: the fields that say what it was, when it has them. */
const IDENTITY = { name: true, type: true, status: true, role: true, url: true, points: true, externalId: true };

/** The id an answer created: a member's externalId, else its `id`, else the `id` of an object it holds (`{key, secret}`). */
function createdId(body: unknown): string {
  if (typeof body !== 'object' || body === null) return '';
  const fields = body as Record<string, unknown>;
  if (typeof fields.externalId === 'string') return fields.externalId;
  if (typeof fields.id === 'string') return fields.id;
  for (const inner of Object.values(fields)) if (typeof inner === 'object' && inner !== null && typeof (inner as { id?: unknown }).id === 'string') return (inner as { id: string }).id;
  return '';
}

/** The `:name` segments of a path. */
const paramNames = (path: string) => [...path.matchAll(/:(\w+)/g)].map(([, name]) => name!);

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
  // Each path's GET handler: an audited change reads what it changes through it first (its "before").
  const readers = new Map<string, (input: never) => unknown>();
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
      csv: options.csv === true,
      write: options.write === true,
      changes: options.write === true && method !== 'GET',
    };
    routes.push(mounted);
    if (method === 'GET') readers.set(path, handler as (input: never) => unknown);
    // The state an edit or a deletion starts from, read through the path's GET in the change's transaction; none when it fails (the change then fails too).
    const readBefore = (input: Input<C, P, B, Q>): unknown => {
      try {
        const state = readers.get(path)?.(input as never);
        return state instanceof Answer ? state.body : state instanceof Promise ? undefined : state;
      } catch {
        return undefined;
      }
    };
    const names = paramNames(path) as ParamsOf<P>[];
    const aboutMembers = /\/members(\/|$)/.test(path);
    /**
     * The change's audit entry, in its transaction: the route, what it names (its path's parameters,
     * else the id the answer created), and before/after without secrets or personal data.
     */
    const audit = (actor: AuditActor, projectId: string, input: Input<C, P, B, Q>, state: unknown, answer: unknown) => {
      const target = names.length > 0 ? names.map((name) => input.param(name)).join(' ') : createdId(answer);
      const body = input.body as unknown;
      const change = method === 'DELETE' ? { before: pickLike(state, IDENTITY) } : { before: state === undefined ? undefined : pickLike(state, body), after: body };
      recordAudit(ctx.db, { projectId: projectId || null, actor, action: `${method} ${path}`, target, summary: summarize(change, { member: aboutMembers }) }, input.now);
    };
    if (options.maxBodyBytes) allowLargerBody(mounted.path, options.maxBodyBytes);
    app.on(method, mounted.path, (event) => surface.serve(event, mounted, async (caller) => {
      const scope = surface.keyScope(caller);
      noteProject(event, scope.projectId);
      if (surface.vary) addVary(event, surface.vary);
      const now = ctx.clock();
      const rawBody = options.body ? await readJson(event, { emptyAllowed: options.optionalBody }) : undefined;
      const body = options.body ? validate(options.body, rawBody) : undefined;
      const raw = options.rawBody ? await readRawBody(event) : '';
      const query = options.query ? readQuery(event, options.query) : undefined;
      if (options.secret && !surface.secretsOnce && event.req.headers.has('idempotency-key')) {
        throw badRequest('Idempotency-Key is not accepted here: the answer carries a secret, which is never stored for a replay.');
      }
      // Added onto the caller (a fresh object per request) rather than spread into a new one: with
      // callers of several shapes, `{ ...caller, … }` took V8's slow path, about a tenth of an award's CPU.
      const input = Object.assign(caller, { event, now, body, raw, query, param: (name: string) => pathParam(event, name) }) as Input<C, P, B, Q>;
      const run = async () => {
        options.verify?.(input);
        if (!mounted.write) {
          const result = await readSnapshot(ctx.db, () => handler(input));
          return result instanceof Answer ? respond(event, result) : result;
        }
        const key = mounted.changes && scope.keys !== false ? keyOf(event, body, options.keyField) : undefined;
        const actor = mounted.changes && !options.forShopper ? surface.auditActor?.(caller) : undefined;
        let awarded = false;
        const perform = () => {
          const before = actor && (method === 'PATCH' || method === 'DELETE') ? readBefore(input) : undefined;
          const response = stored(handler(input));
          awarded = response.storeAs === 'award';
          if (actor) audit(actor, scope.projectId, input, before, response.body);
          return options.secret ? { status: response.status, body: response.body, storeAs: 'secret' as const } : response;
        };
        const keyed = key === undefined ? undefined
          : { ...scope, key, fingerprint: requestFingerprint(method, canonicalPath(event.url.pathname), options.rawBody ? raw : rawBody) };
        const response = await ctx.write(() => (keyed ? once(ctx.db, keyed, now, perform) : perform()));
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
