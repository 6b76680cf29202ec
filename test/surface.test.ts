import { H3 } from 'h3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../src/http/app.ts';
import type { MountedRoute } from '../src/http/route.ts';
import { mountSurfaces } from '../src/http/surface.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// Every API route goes through the one route helper (src/http/route.ts), which reads and validates
// the body, runs writes in one transaction with Idempotency-Key and answers: nothing under /api is
// mounted beside it.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const BODILESS = new Set(['GET', 'HEAD', 'OPTIONS']);

describe('the routes table', () => {
  it('has every route under /api, each mounted once by the helper; the rest only answers 405s, preflights, unknown widget paths and the OpenAPI document', () => {
    const app = createApp(server.ctx);
    const api = app['~routes'].filter((route) => route.route?.startsWith('/api/'));
    const helped = api.filter((route) => route.meta?.route);
    expect(helped.length).toBeGreaterThan(80);
    for (const route of api) {
      const answers = route.meta?.answers;
      expect(route.meta?.route !== undefined || answers === 405 || answers === 'preflight' || answers === 'not found' || answers === 'document', `${route.method} ${route.route}`).toBe(true);
    }
    const name = ({ method, path }: MountedRoute) => `${method} ${path}`;
    const mounted = mountSurfaces(new H3(), server.ctx).map(name);
    expect(helped.map((route) => name(route.meta!.route as MountedRoute))).toEqual(mounted);
    expect(new Set(mounted).size).toBe(mounted.length);
  });

  it('validates the body of every route that takes one, and the query of every list', () => {
    const table = mountSurfaces(new H3(), server.ctx);
    for (const route of table) {
      const name = `${route.method} ${route.path}`;
      if (BODILESS.has(route.method)) expect(route.body, name).toBeUndefined();
      // A signed delivery (`rawBody`) validates its body after checking the signature over the bytes.
      // Discord linking's start is a browser's form post: its state is in the query, its body is never read.
      else if (name !== 'POST /api/community/auth/start') expect(route.body ?? (route as { rawBody?: true }).rawBody, name).toBeDefined();
    }
    const queried = (path: string) => table.find((route) => route.method === 'GET' && route.path === path)?.query;
    for (const path of ['/api/v1/members', '/api/v1/leaderboard', '/api/v1/quests', '/api/widget/history', '/api/widget/claims']) {
      expect(queried(path), path).toBeDefined();
    }
  });

  it('runs every change in one transaction with Idempotency-Key, but for init (writes only when it must), the webhook test (writes nothing), connecting a store (its webhooks are registered in the store before the one write), the start of Discord linking (a browser\'s form post that only sets a cookie) and the admin\'s backup (a copy of the file, outside any transaction)', () => {
    const table = mountSurfaces(new H3(), server.ctx);
    const unchanged = table.filter((route) => !BODILESS.has(route.method) && !route.changes).map(({ method, path }) => `${method} ${path}`);
    expect(unchanged).toEqual(['POST /api/v1/webhooks/:webhookId/test', 'POST /api/commerce/connect', 'DELETE /api/commerce/connect',
      'POST /api/community/auth/start', 'POST /api/widget/init', 'POST /api/admin/projects/:projectId/backups']);
    const widgetWrites = table.filter((route) => route.surface === 'widget API' && route.changes).map(({ method, path }) => `${method} ${path}`);
    expect(widgetWrites.sort()).toEqual([
      'PATCH /api/widget/profile', 'POST /api/widget/games/:id/checkin', 'POST /api/widget/games/:id/play', 'POST /api/widget/promo-code',
      'POST /api/widget/quests/:id/report', 'POST /api/widget/referral/code', 'POST /api/widget/rewards', 'POST /api/widget/social-share',
    ]);
  });
});
