import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, TestClock, tableCounts, type TestServer } from './helpers/server.ts';

let server: TestServer;
// 20:00 on 14 January in Los Angeles (UTC−8) is 04:00 on the 15th in UTC.
const clock = new TestClock(new Date('2026-01-15T04:00:00.000Z'));
const HOUR = 3_600_000;
let gameId: string;
let badgeId: string;

beforeAll(async () => {
  server = await startTestServer({ clock });
  expect((await server.api.patch('/api/v1/project', { timezone: 'America/Los_Angeles' })).status).toBe(200);
  const game = await server.api.post('/api/v1/games', {
    name: 'Daily', type: 'DAILY_CHECKIN', checkinPoints: 10, streakBonuses: [{ day: 3, bonus: 30 }, { day: 2, bonus: 5 }],
  });
  expect(game.status, game.text).toBe(201);
  gameId = game.body.id;
  const badge = await server.api.post('/api/v1/badges', { name: 'Three days', rarity: 'COMMON', criteria: { type: 'currentStreak', threshold: 3 } });
  expect(badge.status, badge.text).toBe(201);
  badgeId = badge.body.id;
  for (const externalId of ['walker', 'skipper', 'idle']) expect((await server.api.post('/api/v1/members', { externalId })).status).toBe(201);
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

const status = (externalId: string, api = server.api, id = gameId) => api.get(`/api/v1/games/${id}/checkin?externalId=${externalId}`);
const checkin = (externalId: string, api = server.api, id = gameId) => api.post(`/api/v1/games/${id}/checkin`, { externalId });
const badges = async (externalId: string) => (await server.api.get(`/api/v1/members/${externalId}/badges`)).body.badges.map((b: { badgeId: string }) => b.badgeId);

describe('daily check-in', () => {
  it('shows the status before the first check-in', async () => {
    const res = await status('walker');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      canCheckin: true, currentStreak: 0, longestStreak: 0, lastCheckinAt: null, todayReward: 10, streakBonus: null,
      nextStreakBonus: { day: 2, bonus: 5, daysAway: 1 },
    });
  });

  it('counts local days: a check-in before and after local midnight continues the streak, paying the bonus on its day', async () => {
    const first = await checkin('walker');
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({
      success: true, pointsAwarded: 10, streakBonus: null, newStreak: 1, basePoints: 10, multiplier: 1, multiplierEventName: null,
      member: { points: 10, currentStreak: 1, longestStreak: 1 },
    });
    // 23:59 in Los Angeles: still the same local day (the UTC date already changed at 16:00 local).
    clock.current = new Date('2026-01-15T07:59:00.000Z');
    const again = await checkin('walker');
    expect(again.status).toBe(429);
    expect(again.headers['retry-after']).toBe('60');
    expect((await status('walker')).body).toMatchObject({ canCheckin: false, currentStreak: 1, streakBonus: null, nextStreakBonus: { day: 2, daysAway: 1 } });
    // 00:01 on 15 January in Los Angeles: a new day.
    clock.current = new Date('2026-01-15T08:01:00.000Z');
    expect((await status('walker')).body).toMatchObject({ canCheckin: true, currentStreak: 1, streakBonus: 5, nextStreakBonus: { day: 3, bonus: 30, daysAway: 1 } });
    const second = await checkin('walker');
    expect(second.body).toMatchObject({ pointsAwarded: 15, streakBonus: 5, newStreak: 2, member: { points: 25, currentStreak: 2 } });
    expect(await badges('walker')).toEqual([]);
    // Late the next local day (23:00 on the 16th in Los Angeles = 07:00 UTC on the 17th).
    clock.current = new Date('2026-01-17T07:00:00.000Z');
    const third = await checkin('walker');
    expect(third.body).toMatchObject({ pointsAwarded: 40, streakBonus: 30, newStreak: 3, member: { points: 65, currentStreak: 3, longestStreak: 3 } });
    expect(await badges('walker')).toEqual([badgeId]);
    expect((await status('walker')).body).toMatchObject({ canCheckin: false, currentStreak: 3, longestStreak: 3, streakBonus: 30, nextStreakBonus: null });
    // The bonus is its own transaction, so the history says what it was.
    const history = (await server.api.get('/api/v1/members/walker/points?history=true')).body.transactions;
    expect(history.slice(0, 2).map((t: { amount: number; description: string }) => [t.amount, t.description])).toEqual([
      [30, 'Check-in streak bonus: day 3'], [10, 'Daily check-in (day 3)'],
    ]);
    const profile = (await server.api.get('/api/v1/members/walker')).body;
    expect(profile).toMatchObject({ currentStreak: 3, longestStreak: 3, points: 65 });
  });

  it('restarts the streak at 1 after a missed day, keeping the longest streak', async () => {
    // Skip 17 January (local) entirely: next check-in on the 18th, 09:00 in Los Angeles.
    clock.current = new Date('2026-01-18T17:00:00.000Z');
    expect((await status('walker')).body).toMatchObject({ canCheckin: true, currentStreak: 0, longestStreak: 3, streakBonus: null });
    const res = await checkin('walker');
    expect(res.body).toMatchObject({ pointsAwarded: 10, streakBonus: null, newStreak: 1, member: { currentStreak: 1, longestStreak: 3 } });
  });

  it('applies a checkin multiplier event to the check-in points and the streak bonus', async () => {
    const event = await server.api.post('/api/v1/multipliers', {
      name: 'Triple check-in', multiplier: 3, startsAt: new Date(clock.current.getTime() - HOUR).toISOString(),
      endsAt: new Date(clock.current.getTime() + 48 * HOUR).toISOString(), sources: ['checkin'],
    });
    expect(event.status, event.text).toBe(201);
    expect((await checkin('skipper')).body).toMatchObject({ pointsAwarded: 30, streakBonus: null, multiplier: 3, multiplierEventName: 'Triple check-in' });
    clock.advance(24 * HOUR);
    expect((await checkin('skipper')).body).toMatchObject({ pointsAwarded: 45, streakBonus: 15, newStreak: 2, member: { points: 75 } });
    clock.advance(25 * HOUR);
  });

  it('answers 403 for an inactive game, 400 for a game that is not a check-in, 404 for unknown ids, writing nothing', async () => {
    const off = await server.api.post('/api/v1/games', { name: 'Off', type: 'DAILY_CHECKIN', checkinPoints: 1, isActive: false });
    const wheel = await server.api.post('/api/v1/games', { name: 'Wheel', type: 'SPIN_WHEEL', prizes: [{ name: 'a', value: 1, weight: 1 }] });
    const before = tableCounts(server);
    expect((await checkin('idle', server.api, off.body.id)).status).toBe(403);
    expect((await status('idle', server.api, off.body.id)).status).toBe(403);
    const wrong = await checkin('idle', server.api, wheel.body.id);
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/play/);
    expect((await checkin('idle', server.api, 'gam_nope')).status).toBe(404);
    expect((await checkin('nobody')).status).toBe(404);
    expect((await status('nobody')).status).toBe(404);
    expect(tableCounts(server)).toEqual(before);
  });

  it('refuses bad bodies and queries with 400 naming the field and writes nothing', async () => {
    const before = tableCounts(server);
    for (const body of [{}, { externalId: '' }, { externalId: null }, { externalId: 'idle', streak: 9 }]) {
      const res = await server.api.post(`/api/v1/games/${gameId}/checkin`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(/externalId|streak/);
    }
    for (const query of ['', '?externalId=', '?externalId=idle&x=1', '?externalId=a&externalId=b']) {
      const res = await server.api.get(`/api/v1/games/${gameId}/checkin${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.message).toMatch(/externalId|"x"/);
    }
    expect(tableCounts(server)).toEqual(before);
  });

  it("answers 404 for another project's game or member and changes nothing", async () => {
    const other = server.addProject('Other');
    const theirs = await other.api.post('/api/v1/games', { name: 'Theirs', type: 'DAILY_CHECKIN', checkinPoints: 5 });
    expect((await other.api.post('/api/v1/members', { externalId: 'stranger' })).status).toBe(201);
    const before = tableCounts(server);
    expect((await checkin('idle', server.api, theirs.body.id)).status).toBe(404);
    expect((await status('idle', server.api, theirs.body.id)).status).toBe(404);
    expect((await checkin('stranger')).status).toBe(404);
    expect((await checkin('idle', other.api)).status).toBe(404);
    expect(tableCounts(server)).toEqual(before);
  });

  it('counts the 23-hour day when daylight saving time starts (8 March 2026 in Los Angeles)', async () => {
    expect((await server.api.post('/api/v1/members', { externalId: 'dst' })).status).toBe(201);
    clock.current = new Date('2026-03-08T07:30:00.000Z'); // 23:30 on 7 March, PST (UTC−8)
    expect((await checkin('dst')).body.newStreak).toBe(1);
    expect((await checkin('dst')).headers['retry-after']).toBe('1800');
    clock.current = new Date('2026-03-09T06:30:00.000Z'); // 23:30 on 8 March, PDT (UTC−7): the same streak's next day
    expect((await checkin('dst')).body.newStreak).toBe(2);
    expect((await checkin('dst')).headers['retry-after']).toBe('1800');
  });
});
