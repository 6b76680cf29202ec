import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { DAY_MS } from '../src/shared/clock.ts';
import { runExpiryPass } from '../src/domain/ledger/expiry.ts';
import { updateProject } from '../src/domain/project/projects.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

let server: TestServer;
const clock = new TestClock(new Date('2026-03-01T10:00:00.000Z'));
const inDays = (days: number) => new Date(clock.now().getTime() + days * DAY_MS).toISOString();
const expire = () => runExpiryPass(server.ctx.db, server.ctx.write, clock.now());
const award = (member: string, body: Record<string, unknown>) => server.api.post(`/api/v1/members/${member}/points`, body);
const history = async (member: string) => (await server.api.get(`/api/v1/members/${member}/points?history=true&limit=100`)).body;

beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(() => server.stop());

describe('point expiry', () => {
  it('spends the earliest-expiring points first, then expires only what is left of them', async () => {
    await server.api.post('/api/v1/members', { externalId: 'ann' });
    await award('ann', { amount: 50 }); // never expires
    const expiring = await award('ann', { amount: 100, expiresAt: inDays(10) });
    expect(expiring.body.transaction.expiresAt).toBe(inDays(10));
    await award('ann', { amount: -30 }); // drawn from the expiring award, not the permanent one

    clock.advance(9 * DAY_MS);
    expect(await expire()).toEqual({ members: 0, points: 0 });

    clock.advance(2 * DAY_MS);
    expect(await expire()).toEqual({ members: 1, points: 70 });
    const after = await history('ann');
    expect(after.points).toBe(50);
    expect(after.totalPointsEarned).toBe(150);
    expect(after.transactions[0]).toMatchObject({ amount: -70, balance: 50, type: 'EXPIRED', source: 'expiry', actor: 'system' });

    expect(await expire()).toEqual({ members: 0, points: 0 }); // nothing twice
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('draws across several expiring awards in expiry order', async () => {
    await server.api.post('/api/v1/members', { externalId: 'ben' });
    await award('ben', { amount: 100, expiresAt: inDays(10) });
    await award('ben', { amount: 100, expiresAt: inDays(5) });
    await award('ben', { amount: -150 }); // empties the day-5 award, takes 50 of the day-10 one

    clock.advance(6 * DAY_MS);
    expect(await expire()).toEqual({ members: 0, points: 0 });
    clock.advance(5 * DAY_MS);
    expect(await expire()).toEqual({ members: 1, points: 50 });
    expect((await history('ben')).points).toBe(0);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('expires due points before a deduction, even if the pass has not run yet', async () => {
    await server.api.post('/api/v1/members', { externalId: 'cy' });
    await award('cy', { amount: 40, expiresAt: inDays(1) });
    clock.advance(2 * DAY_MS);
    const spend = await award('cy', { amount: -10 });
    expect(spend.status).toBe(400);
    expect(spend.body.error).toBe('Insufficient points');
    // The refused deduction rolled back its expiry too; the pass then writes it once.
    expect((await history('cy')).transactions).toHaveLength(1);
    expect(await expire()).toEqual({ members: 1, points: 40 });
    await award('cy', { amount: 25 });
    const ok = await award('cy', { amount: -10 });
    expect(ok.body.member.points).toBe(15);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('applies the project policy to awards without their own expiry', async () => {
    updateProject(server.ctx.db, server.projectId, { pointsExpiryDays: 30 });
    await server.api.post('/api/v1/members', { externalId: 'dee' });
    const policy = await award('dee', { amount: 20 });
    expect(policy.body.transaction.expiresAt).toBe(inDays(30));
    const explicit = await award('dee', { amount: 5, expiresAt: inDays(90) });
    expect(explicit.body.transaction.expiresAt).toBe(inDays(90));
    clock.advance(31 * DAY_MS);
    expect(await expire()).toEqual({ members: 1, points: 20 });
    expect((await history('dee')).points).toBe(5);
    updateProject(server.ctx.db, server.projectId, { pointsExpiryDays: null });
    expect((await award('dee', { amount: 1 })).body.transaction.expiresAt).toBeNull();
  });
});
