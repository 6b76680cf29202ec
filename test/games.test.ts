import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import type { Game } from '../src/domain/catalog/game-kind.ts';
import { animationFor, playGame, type Rng } from '../src/domain/games/play.ts';
import { startTestServer, TestClock, tableCounts, type TestServer } from './helpers/server.ts';

let server: TestServer;
// 10:00 in Tokyo (UTC+9) on 15 January.
const clock = new TestClock(new Date('2026-01-15T01:00:00.000Z'));
const MINUTE = 60_000;

beforeAll(async () => {
  server = await startTestServer({ clock });
  expect((await server.api.patch('/api/v1/project', { timezone: 'Asia/Tokyo' })).status).toBe(200);
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

const PRIZES = [
  { name: 'Nothing', value: 0, weight: 1 },
  { name: 'Ten', value: 10, weight: 2 },
  { name: 'Fifty', value: 50, weight: 3 },
  { name: 'Hundred', value: 100, weight: 4 },
];

async function createGame(body: Record<string, unknown>, api = server.api) {
  const res = await api.post('/api/v1/games', { prizes: PRIZES, ...body });
  expect(res.status, res.text).toBe(201);
  return res.body as { id: string };
}
async function member(externalId: string, points: number, api = server.api) {
  expect((await api.post('/api/v1/members', { externalId })).status).toBeLessThan(300);
  if (points > 0) expect((await api.post(`/api/v1/members/${externalId}/points`, { amount: points })).status).toBe(200);
}
const play = (gameId: string, externalId: string, api = server.api) => api.post(`/api/v1/games/${gameId}/play`, { externalId });
const balance = async (externalId: string) => (await server.api.get(`/api/v1/members/${externalId}`)).body.points as number;

describe('POST /games/{id}/play', () => {
  it('plays each game type: spends the cost, pays the drawn prize and returns what the widget animates', async () => {
    await member('player', 1000);
    for (const type of ['SPIN_WHEEL', 'SLOTS', 'DICE', 'SCRATCH_CARD']) {
      const game = await createGame({ name: type, type, pointsCost: 5 });
      const before = await balance('player');
      const res = await play(game.id, 'player');
      expect(res.status, res.text).toBe(200);
      const { result } = res.body;
      const prize = PRIZES[result.prizeIndex]!;
      expect(res.body).toMatchObject({
        success: true,
        play: { id: expect.stringMatching(/^gpl_/), gameId: game.id, gameType: type, playedAt: clock.current.toISOString() },
        result: { prize: { name: prize.name, value: prize.value }, pointsAwarded: prize.value, basePoints: prize.value, multiplier: 1,
          multiplierEventName: null, pointsSpent: 5, animation: { type } },
        member: { points: before - 5 + prize.value },
      });
      expect(await balance('player')).toBe(before - 5 + prize.value);
      if (type === 'SPIN_WHEEL') expect(result.animation).toEqual({ type, segmentIndex: result.prizeIndex, segments: 4 });
      if (type === 'SLOTS') expect(result.animation.reels).toHaveLength(3);
      if (type === 'DICE') for (const face of result.animation.dice) expect(face).toBeGreaterThanOrEqual(1);
      if (type === 'SCRATCH_CARD') expect(result.animation.grid.filter((cell: number | null) => cell === result.prizeIndex)).toHaveLength(3);
    }
    const spent = server.ctx.db.prepare("SELECT count(*) AS n FROM transactions WHERE type = 'SPENT' AND source = 'game' AND amount = -5").get() as { n: number };
    expect(spent.n).toBe(4);
  });

  it('multiplies the prize with the active multiplier event and records why', async () => {
    const game = await createGame({ name: 'Sure thing', type: 'SPIN_WHEEL', prizes: [{ name: 'Forty', value: 40, weight: 1 }] });
    const event = await server.api.post('/api/v1/multipliers', {
      name: 'Double games', multiplier: 2, startsAt: new Date(clock.current.getTime() - MINUTE).toISOString(),
      endsAt: new Date(clock.current.getTime() + 10 * MINUTE).toISOString(), sources: ['game'],
    });
    expect(event.status, event.text).toBe(201);
    await member('lucky', 0);
    const res = await play(game.id, 'lucky');
    expect(res.body.result).toMatchObject({ prize: { name: 'Forty', value: 40 }, pointsAwarded: 80, basePoints: 40, multiplier: 2, multiplierEventName: 'Double games' });
    expect(res.body.member.points).toBe(80);
    clock.advance(11 * MINUTE);
  });

  it('answers 400 Insufficient points when the balance is below the cost, and changes nothing', async () => {
    const game = await createGame({ name: 'Pricey', type: 'DICE', pointsCost: 500 });
    await member('poor', 499);
    const before = tableCounts(server);
    const res = await play(game.id, 'poor');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Insufficient points');
    expect(tableCounts(server)).toEqual(before);
    expect(await balance('poor')).toBe(499);
  });

  it('answers 403 for an inactive or archived game, 400 for a check-in game, 404 for unknown ids', async () => {
    await member('idle', 100);
    const inactive = await createGame({ name: 'Off', type: 'SLOTS', isActive: false });
    const archived = await createGame({ name: 'Gone', type: 'SLOTS' });
    expect((await server.api.delete(`/api/v1/games/${archived.id}`)).status).toBe(200);
    const checkin = await createGame({ name: 'Daily', type: 'DAILY_CHECKIN', prizes: [], checkinPoints: 5 });
    const before = tableCounts(server);
    expect((await play(inactive.id, 'idle')).status).toBe(403);
    const gone = await play(archived.id, 'idle');
    expect(gone.status).toBe(403);
    expect(gone.body.message).toMatch(/archived/);
    const wrong = await play(checkin.id, 'idle');
    expect(wrong.status).toBe(400);
    expect(wrong.body.message).toMatch(/checkin/);
    expect((await play('gam_nope', 'idle')).status).toBe(404);
    expect((await play(inactive.id, 'nobody')).status).toBe(404);
    expect(tableCounts(server)).toEqual(before);
  });

  it('enforces maxPlaysPerUser with 429 (no Retry-After: it never frees up)', async () => {
    const game = await createGame({ name: 'Twice', type: 'SPIN_WHEEL', maxPlaysPerUser: 2 });
    await member('capped', 0);
    expect((await play(game.id, 'capped')).status).toBe(200);
    clock.advance(2 * 24 * 60 * MINUTE);
    expect((await play(game.id, 'capped')).status).toBe(200);
    clock.advance(2 * 24 * 60 * MINUTE);
    const third = await play(game.id, 'capped');
    expect(third.status).toBe(429);
    expect(third.body.message).toMatch(/maxPlaysPerUser/);
    expect(third.headers['retry-after']).toBeUndefined();
  });

  it('enforces dailyPlaysLimit per calendar day in the project time zone, with Retry-After until local midnight', async () => {
    // 23:50 in Tokyo is 14:50 UTC: the Tokyo day ends in 10 minutes though the UTC day has hours left.
    clock.current = new Date('2026-02-03T14:50:00.000Z');
    const game = await createGame({ name: 'Daily two', type: 'DICE', dailyPlaysLimit: 2 });
    await member('daily', 0);
    expect((await play(game.id, 'daily')).status).toBe(200);
    expect((await play(game.id, 'daily')).status).toBe(200);
    const blocked = await play(game.id, 'daily');
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBe('600');
    expect(blocked.body.message).toMatch(/dailyPlaysLimit/);
    clock.advance(10 * MINUTE); // 00:00 in Tokyo
    expect((await play(game.id, 'daily')).status).toBe(200);
  });

  it('enforces cooldownMinutes with Retry-After in seconds', async () => {
    const game = await createGame({ name: 'Slow', type: 'SCRATCH_CARD', cooldownMinutes: 30 });
    await member('waiting', 0);
    expect((await play(game.id, 'waiting')).status).toBe(200);
    clock.advance(10 * MINUTE + 500);
    const blocked = await play(game.id, 'waiting');
    expect(blocked.status).toBe(429);
    expect(blocked.headers['retry-after']).toBe('1200');
    clock.advance(20 * MINUTE);
    expect((await play(game.id, 'waiting')).status).toBe(200);
  });

  it('refuses bad bodies with 400 naming the field and writes nothing', async () => {
    const game = await createGame({ name: 'Valid', type: 'SPIN_WHEEL' });
    const before = tableCounts(server);
    const cases: [unknown, RegExp][] = [
      [{}, /externalId/],
      [{ externalId: '' }, /externalId/],
      [{ externalId: 42 }, /externalId/],
      [{ externalId: 'player', extra: 1 }, /extra/],
      [[], /JSON object/],
    ];
    for (const [body, message] of cases) {
      const res = await server.api.post(`/api/v1/games/${game.id}/play`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect(tableCounts(server)).toEqual(before);
  });

  it("answers 404 for another project's game or member and changes nothing", async () => {
    const other = server.addProject('Other');
    const theirs = await createGame({ name: 'Theirs', type: 'SPIN_WHEEL' }, other.api);
    await member('stranger', 100, other.api);
    const ours = await createGame({ name: 'Ours', type: 'SPIN_WHEEL' });
    const before = tableCounts(server);
    expect((await play(theirs.id, 'player')).status).toBe(404);
    expect((await play(ours.id, 'stranger')).status).toBe(404);
    expect((await play(ours.id, 'player', other.api)).status).toBe(404);
    expect(tableCounts(server)).toEqual(before);
  });
});

/** The chi-square statistic of observed counts against expected proportions. */
function chiSquare(observed: number[], weights: number[]): number {
  const n = observed.reduce((a, b) => a + b, 0);
  const total = weights.reduce((a, b) => a + b, 0);
  return observed.reduce((sum, count, i) => {
    const expected = (n * weights[i]!) / total;
    return sum + (count - expected) ** 2 / expected;
  }, 0);
}
// The chi-square value with 3 degrees of freedom that a correct draw exceeds with probability 1e-6.
const CRITICAL_P_1E6_DF3 = 30.66;

describe('prize draw', () => {
  it('follows the weights (chi-square, p < 1e-6) with the production RNG, and would catch wrong weights', async () => {
    const game = await createGame({ name: 'Distribution', type: 'SPIN_WHEEL' });
    await member('statistician', 0);
    const plays = 4000;
    const counts = [0, 0, 0, 0];
    // One enclosing transaction (each play joins it) spares 4000 fsyncs; the plays are the real ones.
    server.ctx.db.transaction(() => {
      for (let i = 0; i < plays; i++) counts[playGame(server.ctx.db, server.projectId, game.id, 'statistician', 'test', clock.now()).result.prizeIndex]!++;
    })();
    expect(chiSquare(counts, PRIZES.map((p) => p.weight)), String(counts)).toBeLessThan(CRITICAL_P_1E6_DF3);
    // The same counts measured against wrong weights (two prizes swapped; or all equal) fail by far:
    // at 4000 plays the expected statistic is about 230 and 800.
    expect(chiSquare(counts, [1, 2, 4, 3])).toBeGreaterThan(CRITICAL_P_1E6_DF3);
    expect(chiSquare(counts, [1, 1, 1, 1])).toBeGreaterThan(CRITICAL_P_1E6_DF3);
    const statistician = (await server.api.get('/api/v1/members/statistician')).body;
    const expectedPoints = counts.reduce((sum, count, i) => sum + count * PRIZES[i]!.value, 0);
    expect(statistician.points).toBe(expectedPoints);
  });

  it('draws exactly the prize a fixed RNG picks, and never a prize of weight 0', async () => {
    const game = await createGame({ name: 'Fixed', type: 'SPIN_WHEEL', prizes: [{ name: 'Never', value: 1000, weight: 0 }, ...PRIZES] });
    await member('fixed', 0);
    // Tickets 0..9 over weights 0,1,2,3,4: ticket 0 → "Nothing", 1–2 → "Ten", 3–5 → "Fifty", 6–9 → "Hundred".
    const expected = ['Nothing', 'Ten', 'Ten', 'Fifty', 'Fifty', 'Fifty', 'Hundred', 'Hundred', 'Hundred', 'Hundred'];
    for (const [ticket, name] of expected.entries()) {
      const rng: Rng = (max) => (max === 10 ? ticket : 0);
      expect(playGame(server.ctx.db, server.projectId, game.id, 'fixed', 'test', clock.now(), rng).result.prize.name).toBe(name);
    }
  });

  it('animates consistently: slots line up three only for a prize worth points, scratch cards show the prize three times', () => {
    let seed = 7;
    const rng: Rng = (max) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % max;
    };
    const game = { type: 'SLOTS', prizes: PRIZES } as Game;
    for (let i = 0; i < 500; i++) {
      const prizeIndex = i % PRIZES.length;
      const { reels } = animationFor(game, prizeIndex, rng) as { reels: number[] };
      const threeOfAKind = reels[0] === reels[1] && reels[1] === reels[2];
      expect(threeOfAKind).toBe(PRIZES[prizeIndex]!.value > 0);
      if (threeOfAKind) expect(reels[0]).toBe(prizeIndex);
      const { grid } = animationFor({ ...game, type: 'SCRATCH_CARD' }, prizeIndex, rng) as { grid: (number | null)[] };
      expect(grid).toHaveLength(9);
      for (const [index] of PRIZES.entries()) {
        const shown = grid.filter((cell) => cell === index).length;
        if (index === prizeIndex) expect(shown).toBe(3);
        else expect(shown).toBeLessThanOrEqual(2);
      }
    }
  });
});
