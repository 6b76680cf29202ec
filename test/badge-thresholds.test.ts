import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

// Criteria badges are given by the change that crosses their threshold, once; later awards past
// the threshold neither write nor try to write them again.
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-03-01T12:00:00.000Z')), webhooks: { runner: false } });
  // A subscriber, so every badge.awarded leaves an event row to count.
  expect((await server.api.post('/api/v1/webhooks', { url: 'https://93.184.215.14/hooks', events: ['badge.awarded'] })).status).toBe(201);
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

const badge = async (name: string, threshold: number) => {
  const res = await server.api.post('/api/v1/badges', { name, criteria: { type: 'totalPointsEarned', threshold } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
};
const award = async (externalId: string, amount: number) =>
  expect((await server.api.post(`/api/v1/members/${externalId}/points`, { amount })).status).toBe(200);
const held = async (externalId: string) =>
  ((await server.api.get(`/api/v1/members/${externalId}/badges`)).body.badges as { badgeId: string }[]).map((b) => b.badgeId);
const awardedEvents = (badgeId: string) => (server.ctx.db.prepare("SELECT data FROM events WHERE type = 'badge.awarded'").pluck().all() as string[])
  .filter((data) => JSON.parse(data).badgeId === badgeId).length;

describe('criteria badges', () => {
  it('are granted exactly once, by the award that crosses the threshold', async () => {
    const hundred = await badge('Hundred', 100);
    const thousand = await badge('Thousand', 1000);
    expect((await server.api.post('/api/v1/members', { externalId: 'kim' })).status).toBe(201);
    await award('kim', 60);
    expect(await held('kim')).toEqual([]);
    // One award can cross two thresholds at once.
    await award('kim', 1000);
    expect(await held('kim')).toEqual([hundred, thousand]);
    const before = server.ctx.db.prepare('SELECT count(*) FROM member_badges').pluck().get();
    for (let i = 0; i < 5; i++) await award('kim', 500);
    // A deduction and an award back over an old threshold cross nothing: lifetime earnings only grow.
    expect((await server.api.post('/api/v1/members/kim/points', { amount: -2000 })).status).toBe(200);
    await award('kim', 10);
    expect(server.ctx.db.prepare('SELECT count(*) FROM member_badges').pluck().get()).toBe(before);
    expect([awardedEvents(hundred), awardedEvents(thousand)]).toEqual([1, 1]);
  });

  it('are not given by later awards to a member already past the threshold, nor again after removal by hand', async () => {
    expect((await server.api.post('/api/v1/members', { externalId: 'lou' })).status).toBe(201);
    await award('lou', 300);
    const late = await badge('Late', 200);
    const next = await badge('Next', 400);
    const holds = async (badgeId: string) => (await held('lou')).includes(badgeId);
    await award('lou', 50);
    expect([await holds(late), await holds(next)]).toEqual([false, false]);

    await award('lou', 100);
    expect([await holds(late), await holds(next)]).toEqual([false, true]);
    expect((await server.api.delete('/api/v1/members/lou/badges', { body: { badgeId: next } })).status).toBe(200);
    await award('lou', 100);
    expect(await holds(next)).toBe(false);
    // By hand, as docs/catalog.md says.
    expect((await server.api.post('/api/v1/members/lou/badges', { badgeId: late })).status).toBe(201);
    expect(await holds(late)).toBe(true);
  });
});
