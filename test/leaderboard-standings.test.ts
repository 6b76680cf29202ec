import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.ts';
import { atomically } from '../src/db/transaction.ts';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { adjustPoints } from '../src/domain/ledger/ledger.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

// The server keeps each shown board's order in memory (src/domain/leaderboard/standings.ts): these
// check that it follows the database when writes roll back and when another process writes.
let shop: TestServer;
const clock = new TestClock(new Date('2026-05-04T10:00:00.000Z'));

beforeAll(async () => {
  shop = await startTestServer({ clock });
  for (const externalId of ['ann', 'bob', 'cat', 'dan']) expect((await shop.api.post('/api/v1/members', { externalId })).status).toBe(201);
  for (const [externalId, amount] of [['ann', 10], ['bob', 20]] as const) {
    clock.advance(1000);
    expect((await shop.api.post(`/api/v1/members/${externalId}/points`, { amount })).status).toBe(200);
  }
});
afterAll(async () => {
  expect(checkLedger(shop.ctx.db)).toEqual([]);
  await shop.stop();
});

const shown = async (period = 'all') => {
  const res = await shop.api.get(`/api/v1/leaderboard?period=${period}&limit=100`);
  expect(res.status, res.text).toBe(200);
  return (res.body.entries as { externalId: string; points: number }[]).map((e) => `${e.externalId}:${e.points}`);
};
const rank = async (externalId: string) => (await shop.api.get(`/api/v1/leaderboard/members/${externalId}?period=day`)).body.ranks.day;
/** The board as the database orders it, for comparison with what the server holds. */
const recounted = () => (shop.ctx.db.prepare(`SELECT external_id || ':' || total_points_earned FROM members
  WHERE total_points_earned > 0 ORDER BY total_points_earned DESC, all_reached_at, id`).pluck().all());
const award = (db: typeof shop.ctx.db, externalId: string, amount: number) =>
  adjustPoints(db, shop.projectId, externalId, { amount }, 'test', clock.now());
/** An award through a connection of its own, as the CLI makes one while the server runs. */
function awardElsewhere(externalId: string, amount: number): void {
  const cli = openDatabase(shop.dbPath);
  try {
    clock.advance(1000);
    award(cli, externalId, amount);
  } finally {
    cli.close();
  }
}

describe('leaderboard standings held in memory', () => {
  it('show nothing of an award whose transaction rolls back', async () => {
    expect(await shown()).toEqual(['bob:20', 'ann:10']);
    expect(() => atomically(shop.ctx.db, () => {
      award(shop.ctx.db, 'cat', 50);
      throw new Error('abandoned');
    })).toThrow('abandoned');
    expect(await shown()).toEqual(['bob:20', 'ann:10']);
    expect(await rank('cat')).toEqual({ rank: null, points: 0 });
  });

  it('drop only the savepoint that rolls back when its transaction commits', async () => {
    clock.advance(1000);
    atomically(shop.ctx.db, () => {
      award(shop.ctx.db, 'ann', 15);
      expect(() => atomically(shop.ctx.db, () => {
        award(shop.ctx.db, 'ann', 100);
        award(shop.ctx.db, 'dan', 7);
        throw new Error('inner');
      })).toThrow('inner');
    });
    expect(await shown()).toEqual(['ann:25', 'bob:20']);
    expect(await shown()).toEqual(recounted());
    expect(await rank('ann')).toEqual({ rank: 1, points: 25 });
    expect(await rank('dan')).toEqual({ rank: null, points: 0 });
  });

  it('drop one failed write of a group commit and keep the others of its batch', async () => {
    clock.advance(1000);
    const failing = shop.ctx.write(() => {
      award(shop.ctx.db, 'bob', 1000);
      throw new Error('this write fails');
    });
    const kept = shop.ctx.write(() => award(shop.ctx.db, 'cat', 3));
    await expect(failing).rejects.toThrow('this write fails');
    await kept;
    expect(await shown()).toEqual(['ann:25', 'bob:20', 'cat:3']);
    expect(await shown()).toEqual(recounted());
  });

  it('read again what another process wrote, as the CLI does while the server runs', async () => {
    awardElsewhere('dan', 40);
    expect(await shown()).toEqual(['dan:40', 'ann:25', 'bob:20', 'cat:3']);
    expect(await rank('dan')).toEqual({ rank: 1, points: 40 });
    // And it keeps following the server's own awards afterwards.
    clock.advance(1000);
    expect((await shop.api.post('/api/v1/members/cat/points', { amount: 22 })).status).toBe(200);
    expect(await shown()).toEqual(['dan:40', 'ann:25', 'cat:25', 'bob:20']);
    expect(await shown()).toEqual(recounted());
  });

  it('tell an award that rolled back from one another process made since, however many writes each counted', async () => {
    // The server's count of leaderboard writes goes up by one with the award and must come down
    // with its rollback: the other process's one write would otherwise bring the counts level
    // again, and the server would keep showing the abandoned award instead of reading the new one.
    expect(() => atomically(shop.ctx.db, () => {
      award(shop.ctx.db, 'bob', 500);
      throw new Error('abandoned');
    })).toThrow('abandoned');
    awardElsewhere('ann', 1);
    expect(await shown()).toEqual(recounted());
    expect(await shown()).toEqual(['dan:40', 'ann:26', 'cat:25', 'bob:20']);
  });
});
