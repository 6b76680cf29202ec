import { H3 } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MountedRoute } from '../src/http/route.ts';
import { mountSurfaces } from '../src/http/surface.ts';
import { type AdminBrowser, makeOperator } from './helpers/admin.ts';
import { startTestServer, tableCounts, type TestServer } from './helpers/server.ts';

// The three roles' limits on every route of the admin that changes something: a viewer changes
// nothing, staff change members, points, claims, the catalog and the widget's look, owners all.

let server: TestServer;
let owner: AdminBrowser;
let staff: AdminBrowser;
let viewer: AdminBrowser;
let changes: MountedRoute[];

/** What staff may do; every other change needs an owner. */
const STAFF_ROUTES = [
  'POST /members/:externalId/points', 'DELETE /members/:externalId', 'POST /claims/:claimId/fulfil', 'POST /rewards/:rewardId/draw', 'PATCH /project',
  ...['quests', 'rewards', 'badges', 'levels', 'games', 'promo-codes', 'multipliers'].flatMap((kind) => [
    `POST /catalog/${kind}`, `PATCH /catalog/${kind}/:id`, `DELETE /catalog/${kind}/:id`]),
];

const BASE = '/api/admin/projects/:projectId';
const relative = (route: MountedRoute) => `${route.method} ${route.path.slice(BASE.length)}`;
const concrete = (route: MountedRoute) => route.path.replace(':projectId', server.projectId).replace(/:(\w+)/g, 'nothing-here');

beforeAll(async () => {
  server = await startTestServer();
  owner = await makeOperator(server, 'owner@shop.example', 'owner');
  staff = await makeOperator(server, 'staff@shop.example', 'staff');
  viewer = await makeOperator(server, 'viewer@shop.example', 'viewer');
  changes = mountSurfaces(new H3(), server.ctx).filter((route) => route.surface === 'admin' && route.method !== 'GET');
});
afterAll(() => server.stop());

describe('roles', () => {
  it('knows every changing route of the admin, and which are staff\'s', () => {
    expect(changes.length).toBeGreaterThan(35);
    const forStaff = changes.filter((route) => (route as { role?: string }).role === 'staff').map(relative);
    expect(forStaff.sort()).toEqual([...STAFF_ROUTES].sort());
  });

  it('refuses a viewer every change with 403 naming the role needed, before reading the request, and changes nothing', async () => {
    const before = tableCounts(server);
    for (const route of changes) {
      const res = await viewer.call(route.method, concrete(route), { body: {} });
      expect(res.status, `${relative(route)}: ${res.text}`).toBe(403);
      const needed = STAFF_ROUTES.includes(relative(route)) ? 'staff' : 'owner';
      expect(res.body.message, relative(route)).toMatch(new RegExp(`needs the ${needed} role in this project.*you are a viewer`));
    }
    expect(tableCounts(server)).toEqual(before);
  });

  it('lets staff through their routes only', async () => {
    const before = tableCounts(server);
    for (const route of changes) {
      const res = await staff.call(route.method, concrete(route), { body: {} });
      if (STAFF_ROUTES.includes(relative(route))) expect(res.status, `${relative(route)}: ${res.text}`).not.toBe(403);
      else {
        expect(res.status, `${relative(route)}: ${res.text}`).toBe(403);
        expect(res.body.message).toMatch(/needs the owner role in this project; you are a staff/);
      }
    }
    expect(tableCounts(server)).toEqual(before);
  });

  it('lets staff change the widget\'s look, and nothing else of the project', async () => {
    const look = await staff.patch(`/api/admin/projects/${server.projectId}/project`, { widget: { position: 'left', theme: { primaryColor: '#000000' }, launcherText: 'Bean Club' } });
    expect(look.status, look.text).toBe(200);
    expect(look.body.widget).toMatchObject({ position: 'left', theme: { primaryColor: '#000000' }, launcherText: 'Bean Club' });
    const more = await staff.patch(`/api/admin/projects/${server.projectId}/project`, { widget: { position: 'right', allowedOrigins: ['https://evil.example'] }, welcomeBonus: 500 });
    expect(more.status).toBe(403);
    expect(more.body.message).toBe('Changing "welcomeBonus", "widget.allowedOrigins" needs the owner role; staff may change the widget\'s look '
      + '(widget.theme, widget.position, widget.displayMode, widget.languages, widget.defaultLanguage, widget.programName, widget.launcherText).');
    expect((await owner.get(`/api/admin/projects/${server.projectId}/project`)).body).toMatchObject({ welcomeBonus: 0, widget: { position: 'left', allowedOrigins: [] } });
  });

  it('lets every role read everything but the keys, which only owners list', async () => {
    // Reads that take a required query.
    const REQUIRED_QUERIES: Record<string, string> = { 'GET /points-report': '?from=2026-01-01&to=2026-01-31' };
    const reads = mountSurfaces(new H3(), server.ctx).filter((route) => route.surface === 'admin' && route.method === 'GET' && !route.path.includes(':', BASE.length));
    for (const route of reads) {
      for (const [name, browser] of [['viewer', viewer], ['staff', staff], ['owner', owner]] as const) {
        const res = await browser.get(`${concrete(route)}${REQUIRED_QUERIES[relative(route)] ?? ''}`);
        const ownersOnly = route.path.endsWith('/keys');
        expect(res.status, `${name} ${relative(route)}: ${res.text}`).toBe(ownersOnly && name !== 'owner' ? 403 : 200);
      }
    }
  });

  it('keeps a project\'s last owner', async () => {
    const me = (await owner.get('session')).body.operator.id;
    const demoted = await owner.patch(`/api/admin/projects/${server.projectId}/operators/${me}`, { role: 'staff' });
    expect(demoted.status).toBe(409);
    expect(demoted.body.message).toMatch(/last owner/);
    expect((await owner.delete(`/api/admin/projects/${server.projectId}/operators/${me}`)).status).toBe(409);
  });
});
