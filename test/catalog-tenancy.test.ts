import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import type { ApiResponse } from './helpers/http.ts';
import { startTestServer, tableCounts, type TestServer } from './helpers/server.ts';

let server: TestServer;
let b: ReturnType<TestServer['addProject']>;
/** B's catalog ids by path. */
const ids: Record<string, string> = {};

const CATALOG: [string, Record<string, unknown>][] = [
  ['badges', { name: 'B badge', criteria: { type: 'totalPointsEarned', threshold: 10 } }],
  ['rewards', { name: 'B reward', type: 'PHYSICAL', pointsCost: 10 }],
  ['quests', { name: 'B quest', completionMode: 'MANUAL', points: 10 }],
  ['games', { name: 'B wheel', type: 'SPIN_WHEEL', prizes: [{ name: 'x', value: 1, weight: 1 }] }],
  ['promo-codes', { code: 'BCODE', rewardType: 'POINTS', points: 5 }],
  ['multipliers', { name: 'B double', multiplier: 2, startsAt: '2020-01-01T00:00:00Z', endsAt: '2099-01-01T00:00:00Z' }],
  ['levels', { level: 1, name: 'B level', minTotalPointsEarned: 10 }],
];

function snapshotB() {
  const db = server.ctx.db;
  const rows = (table: string) => db.prepare(`SELECT * FROM ${table} WHERE project_id = ? ORDER BY 1`).all(b.projectId);
  return {
    project: db.prepare('SELECT * FROM projects WHERE id = ?').get(b.projectId),
    catalog: ['quests', 'rewards', 'badges', 'games', 'promo_codes', 'multipliers', 'levels'].map(rows),
    progress: rows('quest_progress'),
    badges: rows('member_badges'),
    members: rows('members'),
  };
}

const expectNotFound = (res: ApiResponse, label: string) => {
  expect(res.status, `${label}: ${res.text}`).toBe(404);
  expect(res.body.error, label).toBe('Not Found');
};

beforeAll(async () => {
  server = await startTestServer();
  b = server.addProject('Tenant B');
  for (const [path, body] of CATALOG) {
    const res = await b.api.post(`/api/v1/${path}`, { ...body, key: `b-${path}` });
    expect(res.status, res.text).toBe(201);
    ids[path] = res.body.id;
  }
  await b.api.post('/api/v1/members', { externalId: 'bob' });
  await b.api.post('/api/v1/members/bob/badges', { badgeId: ids.badges });
  await b.api.post('/api/v1/members', { externalId: 'shared' });
  await server.api.post('/api/v1/members', { externalId: 'shared' });
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

describe("tenancy: another project's catalog ids answer 404 and change nothing", () => {
  it('on every catalog, quest and badge route', async () => {
    const before = snapshotB();
    const counts = tableCounts(server);
    const a = server.api;
    for (const [path] of CATALOG) {
      const one = `/api/v1/${path}/${ids[path]}`;
      expectNotFound(await a.get(one), `GET ${path}`);
      expectNotFound(await a.patch(one, { key: 'hijacked' }), `PATCH ${path}`);
      expectNotFound(await a.delete(one), `DELETE ${path}`);
      const listed = await a.get(`/api/v1/${path}?includeArchived=true`);
      expect(listed.body.pagination.total, `list ${path}`).toBe(0);
    }
    const quest = ids.quests!;
    expectNotFound(await a.post(`/api/v1/quests/${quest}/complete`, { externalId: 'shared' }), 'complete');
    expectNotFound(await a.post(`/api/v1/quests/${quest}/progress`, { externalId: 'shared', progress: 3 }), 'progress');
    expectNotFound(await a.post('/api/v1/members/shared/badges', { badgeId: ids.badges }), 'award badge');
    expectNotFound(await a.delete('/api/v1/members/bob/badges', { body: { badgeId: ids.badges } }), 'remove badge of B member');
    expectNotFound(await a.get('/api/v1/members/bob/badges'), 'list badges of B member');
    expectNotFound(await a.post('/api/v1/quests', { name: 'Steal', completionMode: 'MANUAL', badgeId: ids.badges }), 'quest with B badge');
    expectNotFound(await a.post('/api/v1/promo-codes', { code: 'STEAL', rewardType: 'REWARD', rewardId: ids.rewards }), 'promo with B reward');
    expect(snapshotB()).toEqual(before);
    expect(tableCounts(server)).toEqual(counts);
  });

  it("does not let B's catalog apply to A's members: keys, codes and level numbers are per project", async () => {
    for (const [path, body] of CATALOG) {
      const res = await server.api.post(`/api/v1/${path}`, { ...body, key: `b-${path}` });
      expect(res.status, `${path}: ${res.text}`).toBe(201);
    }
    // B's running 2x multiplier and level do not reach A's awards; A's own do.
    const award = await server.api.post('/api/v1/members/shared/points', { amount: 10 });
    expect(award.body.member).toMatchObject({ points: 10, level: 1, levelName: 'B level' });
    const badges = await server.api.get('/api/v1/members/shared/badges');
    expect(badges.body.badges).toHaveLength(1);
    expect(badges.body.badges[0].badgeId).not.toBe(ids.badges);
    expect((await b.api.get('/api/v1/members/shared')).body).toMatchObject({ points: 0, level: 0 });
    expect((await server.api.get('/api/v1/project')).body.id).toBe(server.projectId);
  });
});
