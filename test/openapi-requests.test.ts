import fc from 'fast-check';
import { H3 } from 'h3';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MountedRoute } from '../src/http/route.ts';
import { mountSurfaces } from '../src/http/surface.ts';
import { validate } from '../src/shared/validate.ts';
import { isAdminRoute } from '../src/http/admin/api.ts';
import { openApiDocument } from '../src/http/openapi.ts';
import { type AdminBrowser, makeOperator } from './helpers/admin.ts';
import { invalid, valid, type JsonSchema } from './helpers/arbitrary.ts';
import { client, type ApiResponse } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// Requests made from the OpenAPI document alone (fast-check arbitraries from its JSON Schemas):
// what the document allows, the route's own schema accepts, and the server never answers 5xx;
// what it refuses gets a 4xx {error, message}. Every answer also passes the contract check of the
// test client (documented status, body valid for its schema).

const MEMBER = 'fuzz-member';
const RUNS = 12;

let server: TestServer;
let routes: MountedRoute[];
let document: any;
let session: string;
let owner: AdminBrowser;
/** Sign-out would end the session the other admin routes are called with. */
const KEPT_OUT = new Set(['DELETE /api/admin/session']);

beforeAll(async () => {
  server = await startTestServer();
  const mounted = mountSurfaces(new H3(), server.ctx);
  routes = mounted.filter((route) => route.surface === 'server API' || route.surface === 'widget API'
    || (isAdminRoute(route) && !KEPT_OUT.has(`${route.method} ${route.path}`)));
  // The admin's routes are not in the public document (docs/admin.md): their own is made the same way.
  const publicDocument = (await server.api.get('/api/v1/openapi.json')).body;
  document = { ...publicDocument, paths: { ...publicDocument.paths, ...(openApiDocument(mounted.filter(isAdminRoute), server.url) as any).paths } };
  owner = await makeOperator(server, 'fuzz@shop.example', 'owner');
  expect((await server.api.post('/api/v1/members', { externalId: MEMBER })).status).toBe(201);
  expect((await server.api.post(`/api/v1/members/${MEMBER}/points`, { amount: 1_000_000 })).status).toBe(200);
  // The widget API with a session of the same member (init answers one for a signed ticket).
  const { widgetHeader } = await import('./helpers/widget.ts');
  const ticket = widgetHeader({ publicKey: server.publishableKey, widgetSecret: server.widgetSecret }, MEMBER, server.clock.now().getTime());
  const init = await client(server.url).post('/api/widget/init', {}, { headers: { 'x-widget-auth': ticket } });
  session = init.body.session.token;
  // Every feature on, so widget routes reach their handlers.
  const features = Object.fromEntries(Object.keys(init.body.project.widgetSettings.features).map((name) => [name, true]));
  expect((await server.api.patch('/api/v1/project', { widget: { features } })).status).toBe(200);
});
afterAll(() => server.stop());

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

/** The path with its parameters filled: the fuzz member, and ids that name nothing (404 is a fine answer). */
const concretePath = (path: string) =>
  path.replace(/:(\w+)/g, (_m, name: string) => (name === 'externalId' ? MEMBER : name === 'projectId' ? server.projectId : 'nothing-here'));

interface Generated {
  body: unknown;
  query: Record<string, unknown>;
}

function send(route: MountedRoute, { body, query }: Generated): Promise<ApiResponse> {
  const search = new URLSearchParams(Object.entries(query).map(([name, value]) => [name, String(value)])).toString();
  const path = `${concretePath(route.path)}${search ? `?${search}` : ''}`;
  if (isAdminRoute(route)) return owner.call(route.method, path, body === undefined ? {} : { body });
  const headers: Record<string, string> = route.surface === 'widget API' ? { authorization: `Bearer ${session}` } : {};
  const api = client(server.url, route.surface === 'server API' ? server.secretKey : undefined);
  return api.call(route.method, path, { ...(body === undefined ? {} : { body }), headers });
}

function querySchema(operation: any): JsonSchema {
  const parameters = (operation.parameters ?? []).filter((p: { in: string }) => p.in === 'query');
  return {
    type: 'object',
    properties: Object.fromEntries(parameters.map((p: { name: string; schema: JsonSchema }) => [p.name, p.schema])),
    required: parameters.filter((p: { required: boolean }) => p.required).map((p: { name: string }) => p.name),
    additionalProperties: false,
  };
}

const bodySchema = (operation: any): JsonSchema | undefined => operation.requestBody?.content['application/json'].schema;

/** Why the route's own schema refuses what the document allows, if it does. */
function refusal(schema: v.GenericSchema | undefined, value: unknown): string | null {
  if (!schema) return null;
  const result = v.safeParse(schema, value);
  if (result.success) return null;
  const issues = result.issues.map((issue) => `${issue.path?.map((p) => String(p.key)).join('.') ?? ''} ${issue.message}`);
  const stated = issues.filter((issue) => !UNSTATED_RULES.some((rule) => issue.includes(rule)));
  return stated.length ? stated.join('; ') : null;
}

/**
 * Rules JSON Schema cannot state for these parameters and fields (one field against another, a
 * time zone Intl knows, an origin's exact form): the route refuses them with a 400 naming the rule.
 */
const UNSTATED_RULES = [
  'must give exactly one of email or externalId',
  'timezone must be an IANA time zone',
  'allowedOrigins.',
  '"resendFailed" goes only with "isActive": true',
  '"newPassword" needs "currentPassword"',
  'cursor continues a listing without search',
  'offset + limit must be at most',
  'needs an externalId or an email to name the member by',
];

const asQuery = (query: Record<string, unknown>) => Object.fromEntries(Object.entries(query).map(([name, value]) => [name, String(value)]));

describe('requests made from the document', () => {
  it('valid ones pass the route\'s schema and never get a 5xx', async () => {
    const problems: string[] = [];
    for (const route of routes) {
      const operation = document.paths[openApiPath(route.path)][route.method.toLowerCase()];
      const schema = bodySchema(operation);
      const generated = fc.record({ body: schema ? valid(schema) : fc.constant(undefined), query: valid(querySchema(operation)) }) as fc.Arbitrary<Generated>;
      await fc.assert(fc.asyncProperty(generated, async (request) => {
        const refused = refusal(route.body, request.body) ?? refusal(route.query, asQuery(request.query));
        if (refused) problems.push(`${route.method} ${route.path}: the document allows ${JSON.stringify(request)}, the route refuses: ${refused}`);
        const res = await send(route, request);
        expect(res.status, `${route.method} ${route.path} ${JSON.stringify(request)}: ${res.text}`).toBeLessThan(500);
      }), { numRuns: RUNS });
    }
    expect([...new Set(problems.map((p) => p.split(': the document')[0]))], problems.filter((p, i, all) => all.findIndex((q) => q.split(": the document")[0] === p.split(": the document")[0]) === i).join('\n')).toEqual([]);
  });

  it('invalid ones get a 4xx {error, message} and never a 5xx', async () => {
    let tried = 0;
    for (const route of routes) {
      const operation = document.paths[openApiPath(route.path)][route.method.toLowerCase()];
      const schema = bodySchema(operation);
      const bad = schema && invalid(schema);
      if (!bad) continue;
      tried++;
      await fc.assert(fc.asyncProperty(bad, async (body) => {
        // validate() is what a route runs: valibot's schema and the check that an array never passes for an object.
        expect(() => validate(route.body!, body), `${route.method} ${route.path} accepts ${JSON.stringify(body)}`).toThrow();
        const res = await send(route, { body, query: {} });
        expect(res.status, `${route.method} ${route.path} ${JSON.stringify(body)}: ${res.text}`).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(res.body).toEqual({ error: expect.any(String), message: expect.any(String) });
      }), { numRuns: RUNS });
    }
    expect(tried).toBeGreaterThan(20);
  });
});
