import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { punchcard, punchcardJson } from './helpers/cli.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
const run = (args: string[]) => punchcardJson(['--db', server.dbPath, ...args, '--project', server.projectId]);

beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

const rewardId = async (body: Record<string, unknown>) => (await server.api.post('/api/v1/rewards', body)).body.id as string;
const claim = async (reward: string, externalId: string) => {
  await server.api.post('/api/v1/members', { externalId });
  await server.api.post(`/api/v1/members/${externalId}/points`, { amount: 10 });
  const res = await server.api.post(`/api/v1/rewards/${reward}/redeem`, { externalId });
  expect(res.status, res.text).toBe(200);
  return res.body.claim.id as string;
};

describe('punchcard claims and rewards draw', { timeout: 90_000 }, () => {
  it('lists claims and moves a PHYSICAL claim through fulfilment', async () => {
    const mug = await rewardId({ name: 'Mug', type: 'PHYSICAL', pointsCost: 5 });
    const id = await claim(mug, 'shipper');
    const listed = run(['claims', 'list', '--reward', mug, '--status', 'pending']);
    expect(listed.claims).toMatchObject([{ id, externalId: 'shipper', status: 'PENDING', reward: { name: 'Mug' } }]);
    expect(run(['claims', 'fulfil', id, '--status', 'SHIPPED'])).toMatchObject({ id, status: 'SHIPPED' });
    expect((await server.api.get('/api/v1/members/shipper/claims')).body.claims[0].status).toBe('SHIPPED');
    const bad = punchcard(['--db', server.dbPath, 'claims', 'fulfil', id, '--project', server.projectId, '--status', 'LOST']);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toMatch(/--status must be one of/);
    const table = punchcard(['--db', server.dbPath, 'claims', 'list', '--project', server.projectId]);
    expect(table.stdout).toContain('Mug');
  });

  it('moves a CUSTOM claim from PENDING to DELIVERED (the shop delivers it its own way), and refuses a COUPON claim', async () => {
    const call = await claim(await rewardId({ name: 'Thank-you call', type: 'CUSTOM', pointsCost: 5 }), 'caller');
    expect(run(['claims', 'list', '--status', 'pending']).claims).toContainEqual(expect.objectContaining({ id: call, status: 'PENDING' }));
    expect(run(['claims', 'fulfil', call])).toMatchObject({ id: call, status: 'DELIVERED' });
    expect((await server.api.get('/api/v1/members/caller/claims')).body.claims[0]).toMatchObject({ id: call, status: 'DELIVERED' });
    const code = await claim(await rewardId({ name: 'Five off', type: 'COUPON', pointsCost: 5, discountConfig: { type: 'FIXED_CART', value: 5 } }), 'coupon-holder');
    const refused = punchcard(['--db', server.dbPath, 'claims', 'fulfil', code, '--project', server.projectId]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/only PHYSICAL and CUSTOM claims are fulfilled/);
  });

  it('draws raffle winners once, at most one win per member, and the raffle takes no more entries', async () => {
    const raffle = await rewardId({ name: 'Bike raffle', type: 'RAFFLE', pointsCost: 1 });
    const entrants = ['r1', 'r2', 'r3', 'r4', 'r5'];
    for (const name of entrants) await claim(raffle, name);
    await server.api.post(`/api/v1/rewards/${raffle}/redeem`, { externalId: 'r1' }); // a second entry for r1
    const draw = run(['rewards', 'draw', raffle, '--winners', '2']);
    expect(draw).toMatchObject({ rewardId: raffle, entries: 6 });
    expect(draw.winners).toHaveLength(2);
    expect(new Set(draw.winners.map((w: { externalId: string }) => w.externalId)).size).toBe(2);
    const statuses = run(['claims', 'list', '--reward', raffle]).claims.map((c: { status: string }) => c.status).sort();
    expect(statuses).toEqual(['LOST', 'LOST', 'LOST', 'LOST', 'WON', 'WON']);
    const again = punchcard(['--db', server.dbPath, 'rewards', 'draw', raffle, '--project', server.projectId, '--winners', '1']);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(/drawn once/);
    expect((await server.api.post(`/api/v1/rewards/${raffle}/redeem`, { externalId: 'r2' })).status).toBe(403);
    const notRaffle = punchcard(['--db', server.dbPath, 'rewards', 'draw', await rewardId({ name: 'X', type: 'CUSTOM', pointsCost: 1 }),
      '--project', server.projectId, '--winners', '1']);
    expect(notRaffle.stderr).toMatch(/not a RAFFLE/);
  });
});
