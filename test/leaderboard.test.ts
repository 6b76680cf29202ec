import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { MAX_POSTING } from '../src/shared/value-schemas.ts';
import { startTestServer, TestClock, tableCounts, type TestServer } from './helpers/server.ts';

let server: TestServer;
// Saturday 31 January 2026, 23:30 in Tokyo (UTC+9).
const clock = new TestClock(new Date('2026-01-31T14:30:00.000Z'));
const MINUTE = 60_000;

beforeAll(async () => {
  server = await startTestServer({ clock });
  expect((await server.api.patch('/api/v1/project', { timezone: 'Asia/Tokyo' })).status).toBe(200);
  for (const [externalId, name] of [['alice', 'Alice'], ['bob', 'Bob'], ['carol', 'Carol'], ['dave', 'Dave']]) {
    expect((await server.api.post('/api/v1/members', { externalId, name })).status).toBe(201);
  }
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

const award = async (externalId: string, amount: number) => expect((await server.api.post(`/api/v1/members/${externalId}/points`, { amount })).status).toBe(200);
const board = async (period: string, api = server.api) => {
  const res = await api.get(`/api/v1/leaderboard?period=${period}`);
  expect(res.status, res.text).toBe(200);
  expect(res.body.period).toBe(period);
  return (res.body.entries as { externalId: string; points: number; rank: number }[]).map((e) => `${e.rank}:${e.externalId}:${e.points}`);
};

describe('GET /leaderboard', () => {
  it('ranks by points earned in the period, ties going to whoever got there first', async () => {
    await award('alice', 100);
    clock.advance(MINUTE);
    await award('bob', 100);
    const res = await server.api.get('/api/v1/leaderboard');
    expect(res.body).toEqual({ period: 'all', entries: [
      { rank: 1, externalId: 'alice', name: 'Alice', points: 100 }, { rank: 2, externalId: 'bob', name: 'Bob', points: 100 },
    ] });
    for (const period of ['day', 'week', 'month']) expect(await board(period)).toEqual(['1:alice:100', '2:bob:100']);
  });

  it('starts a new day and month at local midnight, while the week (Monday to Sunday) goes on', async () => {
    clock.current = new Date('2026-01-31T15:10:00.000Z'); // Sunday 1 February, 00:10 in Tokyo
    expect(await board('day')).toEqual([]);
    expect(await board('month')).toEqual([]);
    expect(await board('week')).toEqual(['1:alice:100', '2:bob:100']);
    await award('carol', 50);
    expect(await board('day')).toEqual(['1:carol:50']);
    expect(await board('month')).toEqual(['1:carol:50']);
    expect(await board('week')).toEqual(['1:alice:100', '2:bob:100', '3:carol:50']);
    clock.current = new Date('2026-02-01T15:10:00.000Z'); // Monday 2 February, 00:10 in Tokyo: a new week
    expect(await board('week')).toEqual([]);
    expect(await board('month')).toEqual(['1:carol:50']);
    expect(await board('all')).toEqual(['1:alice:100', '2:bob:100', '3:carol:50']);
  });

  it('counts only awards: spending never lowers a rank; a tie reached later ranks lower', async () => {
    await award('bob', 1);
    clock.advance(MINUTE);
    await award('alice', 1);
    await award('bob', -90);
    expect(await board('all')).toEqual(['1:bob:101', '2:alice:101', '3:carol:50']);
    expect(await board('day')).toEqual(['1:bob:1', '2:alice:1']);
  });

  it('honours limit, and shows an erased member without a name', async () => {
    const top = await server.api.get('/api/v1/leaderboard?period=all&limit=1');
    expect(top.body.entries).toEqual([{ rank: 1, externalId: 'bob', name: 'Bob', points: 101 }]);
    expect((await server.api.delete('/api/v1/members/bob')).status).toBe(200);
    const after = await server.api.get('/api/v1/leaderboard?limit=1');
    expect(after.body.entries).toEqual([{ rank: 1, externalId: expect.stringMatching(/^mem_/), name: null, points: 101 }]);
  });

  it('refuses bad queries with 400 naming the parameter', async () => {
    const before = tableCounts(server);
    const cases: [string, RegExp][] = [
      ['period=year', /period/], ['period=', /period/], ['limit=0', /limit/], ['limit=101', /limit/], ['limit=ten', /limit/],
      ['limit=1&limit=2', /limit/], ['sort=desc', /sort/],
    ];
    for (const [query, message] of cases) {
      const res = await server.api.get(`/api/v1/leaderboard?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await server.api.get('/api/v1/leaderboard/members/carol?period=year')).status).toBe(400);
    expect((await server.api.get('/api/v1/leaderboard/members/carol?limit=3')).status).toBe(400);
    expect(tableCounts(server)).toEqual(before);
  });
});

describe('GET /leaderboard/members/{externalId}', () => {
  it("gives the member's rank and points in every period, or in the one asked for", async () => {
    const res = await server.api.get('/api/v1/leaderboard/members/alice');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      externalId: 'alice', name: 'Alice',
      ranks: { all: { rank: 2, points: 101 }, month: { rank: 3, points: 1 }, week: { rank: 2, points: 1 }, day: { rank: 2, points: 1 } },
    });
    const carol = await server.api.get('/api/v1/leaderboard/members/carol?period=month');
    expect(carol.body).toEqual({ externalId: 'carol', name: 'Carol', ranks: { month: { rank: 1, points: 50 } } });
    const dave = await server.api.get('/api/v1/leaderboard/members/dave');
    expect(dave.body.ranks.all).toEqual({ rank: null, points: 0 });
    expect((await server.api.get('/api/v1/leaderboard/members/nobody')).status).toBe(404);
  });

  it("keeps projects apart: another project's board is its own, and our members are 404 there", async () => {
    const other = server.addProject('Other');
    expect((await other.api.post('/api/v1/members', { externalId: 'alice', name: 'Other Alice' })).status).toBe(201);
    expect((await other.api.post('/api/v1/members/alice/points', { amount: 7 })).status).toBe(200);
    expect(await board('all', other.api)).toEqual(['1:alice:7']);
    expect((await other.api.get('/api/v1/leaderboard/members/carol')).status).toBe(404);
    expect((await server.api.get('/api/v1/leaderboard/members/alice')).body.ranks.all).toEqual({ rank: 2, points: 101 });
  });
});

describe('ranks on a large board', () => {
  it('gives every member of a large board the rank the list gives them, through ties, spread totals and huge ones', async () => {
    const own = new TestClock(new Date('2026-03-10T12:00:00.000Z'));
    const shop = await startTestServer({ clock: own });
    try {
      const members = Array.from({ length: 150 }, (_, i) => `m${String(i).padStart(3, '0')}`);
      for (const externalId of members) expect((await shop.api.post('/api/v1/members', { externalId })).status).toBe(201);
      // A fixed pseudo-random sequence: small totals with many ties, spread ones, and huge ones.
      let seed = 7;
      const next = () => (seed = (seed * 48271) % 2147483647);
      const amount = (i: number) => [1 + (next() % 5), 10 + (next() % 2000), MAX_POSTING - (next() % 3)][i % 3]!;
      const totals = new Map<string, { points: number; at: number; order: number }>();
      const expected = () => [...totals.entries()].sort(([, a], [, b]) => b.points - a.points || a.at - b.at || a.order - b.order).map(([id]) => id);
      const check = async () => {
        const ranking = expected();
        for (const [index, externalId] of ranking.entries()) {
          const res = await shop.api.get(`/api/v1/leaderboard/members/${externalId}?period=all`);
          expect(res.body.ranks.all, externalId).toEqual({ rank: index + 1, points: totals.get(externalId)!.points });
        }
        const top = await shop.api.get('/api/v1/leaderboard?limit=100');
        expect(top.body.entries.map((e: { externalId: string }) => e.externalId)).toEqual(ranking.slice(0, 100));
      };
      for (const round of [0, 1]) {
        for (const [order, externalId] of members.entries()) {
          if ((order + round) % 4 === 0) continue; // some members earn in one round only
          own.advance(1000);
          const points = amount(order + round);
          expect((await shop.api.post(`/api/v1/members/${externalId}/points`, { amount: points })).status).toBe(200);
          totals.set(externalId, { points: (totals.get(externalId)?.points ?? 0) + points, at: own.now().getTime(), order });
        }
        await check();
      }
    } finally {
      await shop.stop();
    }
  });
});

describe('leaderboard retention', () => {
  it("keeps each member's latest day, week and month on their row: a later period starts afresh, nothing is left to prune", async () => {
    const own = new TestClock(new Date('2026-01-10T12:00:00.000Z'));
    const shop = await startTestServer({ clock: own });
    try {
      expect((await shop.api.patch('/api/v1/project', { timezone: 'UTC' })).status).toBe(200);
      expect((await shop.api.post('/api/v1/members', { externalId: 'ann' })).status).toBe(201);
      // Saturday 10 Jan, Friday 20 Feb, Sunday 1 Mar, then Monday 9 to Wednesday 11 March (twice).
      for (const [day, amount] of [['2026-01-10', 1], ['2026-02-20', 2], ['2026-03-01', 4], ['2026-03-09', 8], ['2026-03-10', 16], ['2026-03-11', 32], ['2026-03-11', 64]] as const) {
        own.current = new Date(`${day}T12:00:00.000Z`);
        expect((await shop.api.post('/api/v1/members/ann/points', { amount })).status).toBe(200);
      }
      const at = own.now().getTime();
      expect(shop.ctx.db.prepare(`SELECT total_points_earned, all_reached_at, month_board, month_points, month_reached_at, week_board, week_points,
        week_reached_at, day_board, day_points, day_reached_at FROM members WHERE external_id = 'ann'`).raw().get()).toEqual([
        127, at, 100_000_000 + 20260301, 4 + 8 + 16 + 32 + 64, at, 200_000_000 + 20260309, 8 + 16 + 32 + 64, at, 300_000_000 + 20260311, 32 + 64, at,
      ]);
      const shown = async (period: string) => (await shop.api.get(`/api/v1/leaderboard?period=${period}`)).body.entries.map((e: { points: number }) => e.points);
      expect(await Promise.all(['all', 'month', 'week', 'day'].map(shown))).toEqual([[127], [124], [120], [96]]);
    } finally {
      await shop.stop();
    }
  });
});
