import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';
import { widgetClient, type WidgetSigner } from './helpers/widget.ts';

let server: TestServer;
let signer: WidgetSigner;
let badgeId: string;
let questId: string;

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-05-01T10:00:00Z')) });
  signer = { publicKey: server.publishableKey, widgetSecret: server.widgetSecret };
  const badge = await server.api.post('/api/v1/badges', { name: 'Regular', rarity: 'RARE', description: 'Three visits' });
  badgeId = badge.body.id;
  await server.api.post('/api/v1/badges', { name: 'Legend', rarity: 'LEGENDARY' });
  const quest = await server.api.post('/api/v1/quests', {
    name: 'Visit three times', action: 'visit', completionMode: 'AUTOMATED', targetCount: 3, points: 30, badgeId,
  });
  questId = quest.body.id;
  await server.api.post('/api/v1/quests', { name: 'Write a review', completionMode: 'SELF_REPORT', points: 10 });
  const archived = await server.api.post('/api/v1/quests', { name: 'Old quest', completionMode: 'MANUAL', points: 5 });
  await server.api.delete(`/api/v1/quests/${archived.body.id}`);
});
afterAll(() => server.stop());

describe('GET /api/widget/quests and /api/widget/badges', () => {
  it("show the live quests with the member's progress, and badges earned and to earn", async () => {
    const w = widgetClient(server.url, signer, 'quester', server.clock.now);
    expect((await w.post('/init', {})).status).toBe(200);
    const before = await w.get('/quests');
    expect(before.status, before.text).toBe(200);
    expect(before.body.quests.map((q: { name: string }) => q.name)).toEqual(['Visit three times', 'Write a review']);
    expect(before.body.quests[0]).toMatchObject({ id: questId, points: 30, targetCount: 3, progress: 0, status: null, completionMode: 'AUTOMATED' });

    await server.api.post('/api/v1/events', { externalId: 'quester', event: 'visit' });
    await server.api.post('/api/v1/events', { externalId: 'quester', event: 'visit' });
    expect((await w.get('/quests')).body.quests[0]).toMatchObject({ progress: 2, status: 'IN_PROGRESS' });
    expect((await w.get('/badges')).body).toEqual({
      earned: [],
      available: [
        { id: badgeId, name: 'Regular', description: 'Three visits', imageUrl: null, rarity: 'RARE' },
        { id: expect.stringMatching(/^bdg_/), name: 'Legend', description: null, imageUrl: null, rarity: 'LEGENDARY' },
      ],
    });

    await server.api.post('/api/v1/events', { externalId: 'quester', event: 'visit' });
    expect((await w.get('/quests')).body.quests[0]).toMatchObject({ progress: 3, status: 'COMPLETED' });
    const badges = (await w.get('/badges')).body;
    expect(badges.earned).toEqual([{
      id: expect.stringMatching(/^mbg_/), badgeId, name: 'Regular', description: 'Three visits', imageUrl: null, rarity: 'RARE',
      awardedAt: server.clock.now().toISOString(),
    }]);
    expect(badges.available.map((b: { name: string }) => b.name)).toEqual(['Legend']);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it("answer 403 when the project turned the feature off, and never show another project's catalog", async () => {
    const w = widgetClient(server.url, signer, 'quester', server.clock.now);
    expect((await server.api.patch('/api/v1/project', { widget: { features: { quests: false, badges: false } } })).status).toBe(200);
    for (const path of ['/quests', '/badges']) {
      const res = await w.get(path);
      expect(res.status, path).toBe(403);
      expect(res.body.message).toMatch(/feature is turned off/);
    }
    expect((await server.api.patch('/api/v1/project', { widget: { features: { quests: true, badges: true } } })).status).toBe(200);

    const other = server.addProject('Other shop');
    const otherWidget = widgetClient(server.url, { publicKey: other.publishableKey, widgetSecret: other.widgetSecret }, 'quester', server.clock.now);
    expect((await otherWidget.post('/init', {})).status).toBe(200);
    expect((await otherWidget.get('/quests')).body).toEqual({ quests: [] });
    expect((await otherWidget.get('/badges')).body).toEqual({ earned: [], available: [] });
  });
});
