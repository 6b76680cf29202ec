import { Validator } from '@seriousme/openapi-schema-validator';
import { H3 } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mountSurfaces } from '../src/http/surface.ts';
import { isAdminRoute } from '../src/http/admin/api.ts';
import type { MountedRoute } from '../src/http/route.ts';
import { request } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
let routes: MountedRoute[];
let document: any;

beforeAll(async () => {
  server = await startTestServer();
  // The router's table, as the server mounts it: every route goes through the route helper.
  routes = mountSurfaces(new H3(), server.ctx);
  document = (await request(server.url, 'GET', '/api/v1/openapi.json')).body;
});
afterAll(() => server.stop());

const openApiPath = (path: string) => path.replace(/:(\w+)/g, '{$1}');

describe('GET /api/v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document, public, with this server\'s URL', async () => {
    const res = await request(server.url, 'GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: server.url }]);
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('declares what every mounted route answers', () => {
    const undeclared = routes.filter((route) => !Object.keys(route.responses).some((status) => /^[23]/.test(status)))
      .map((route) => `${route.method} ${route.path}`);
    expect(undeclared).toEqual([]);
  });

  it('declares every tag its operations use, so the reference shows each group', () => {
    const declared = (document.tags as { name: string }[]).map((tag) => tag.name);
    const used = Object.values(document.paths as Record<string, Record<string, { tags: string[] }>>)
      .flatMap((operations) => Object.values(operations).flatMap((operation) => operation.tags));
    expect([...new Set(used)].sort()).toEqual([...declared].sort());
  });

  it('has every mounted route but the admin\'s own, and nothing else', () => {
    const mounted = routes.filter((route) => !isAdminRoute(route)).map((route) => `${route.method.toLowerCase()} ${openApiPath(route.path)}`).sort();
    const documented = Object.entries(document.paths as Record<string, Record<string, unknown>>)
      .flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method} ${path}`)).sort();
    expect(documented).toEqual(mounted);
  });

  it('describes bodies, parameters, errors, both security schemes and the webhooks', () => {
    const award = document.paths['/api/v1/members/{externalId}/points'].post;
    expect(award.parameters).toContainEqual(expect.objectContaining({ name: 'externalId', in: 'path', required: true }));
    expect(award.parameters).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
    expect(award.requestBody.content['application/json'].schema.properties.amount.type).toBe('integer');
    expect(award.requestBody.content['application/json'].example).toMatchObject({ amount: 150 });
    expect(award.responses['200'].content['application/json'].schema.properties).toHaveProperty('transaction');
    expect(award.responses['400']).toEqual({ $ref: '#/components/responses/E400' });
    expect(award.security).toEqual([{ secretKey: [] }, { apiKeyHeader: [] }]);
    const list = document.paths['/api/v1/members'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(['search', 'limit', 'offset', 'cursor']);
    expect(document.paths['/api/widget/init'].post.security).toEqual([{ widgetAuth: [] }, { widgetSession: [] }]);
    expect(Object.keys(document.components.securitySchemes)).toEqual(['secretKey', 'apiKeyHeader', 'widgetAuth', 'widgetSession']);
    expect(document.components.schemas.Error).toMatchObject({ required: ['error', 'message'] });
    expect(Object.keys(document.webhooks)).toContain('points.awarded');
    expect(document.webhooks['points.awarded'].post.requestBody.content['application/json'].schema.properties.data.properties)
      .toHaveProperty('pointsAwarded');
  });
});
