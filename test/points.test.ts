import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, tableCounts, type TestServer } from './helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  await server.api.post('/api/v1/members', { externalId: 'alice' });
});
afterAll(() => server.stop());

describe('points', () => {
  it('awards and deducts, returning the transaction and the member', async () => {
    const award = await server.api.post('/api/v1/members/alice/points', { amount: 120, description: 'Welcome', referenceId: 'order-1', metadata: { channel: 'pos' } });
    expect(award.status).toBe(200);
    expect(award.body.transaction).toMatchObject({
      amount: 120, balance: 120, type: 'EARNED', source: 'api', actor: server.secretKey.slice(0, 12),
      description: 'Welcome', referenceId: 'order-1', metadata: { channel: 'pos' },
    });
    expect(award.body.transaction.id).toMatch(/^txn_/);
    expect(award.body.member).toMatchObject({ externalId: 'alice', points: 120, totalPointsEarned: 120 });

    const deduct = await server.api.post('/api/v1/members/alice/points', { amount: -20 });
    expect(deduct.status).toBe(200);
    expect(deduct.body.transaction).toMatchObject({ amount: -20, balance: 100, type: 'DEDUCTED' });
    expect(deduct.body.member).toMatchObject({ points: 100, totalPointsEarned: 120 });
  });

  it('never takes a balance below zero, and writes nothing when it refuses', async () => {
    const before = tableCounts(server);
    const res = await server.api.post('/api/v1/members/alice/points', { amount: -101 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Insufficient points', message: 'The member has 100 points; 101 cannot be deducted.' });
    expect(tableCounts(server)).toEqual(before);
  });

  it('reports the balance, with history only when asked, newest first and limited', async () => {
    const plain = await server.api.get('/api/v1/members/alice/points');
    expect(plain.body).toEqual({ points: 100, totalEarned: 120, totalPointsEarned: 120, pendingPoints: 0 });

    const history = await server.api.get('/api/v1/members/alice/points?history=true&limit=1');
    expect(history.body.transactions).toHaveLength(1);
    expect(history.body.transactions[0]).toMatchObject({ amount: -20, balance: 100 });

    const all = await server.api.get('/api/v1/members/alice/points?history=true');
    expect(all.body.transactions.map((t: { amount: number }) => t.amount)).toEqual([-20, 120]);
  });

  it('answers 404 for an unknown member and keeps the ledger invariant', async () => {
    const res = await server.api.post('/api/v1/members/nobody/points', { amount: 5 });
    expect(res.status).toBe(404);
    expect(res.body.error).toBe('Not Found');
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('addresses externalIds containing slashes and unicode when URL-encoded', async () => {
    for (const externalId of ['shop/42', 'zoë ✓']) {
      expect((await server.api.post('/api/v1/members', { externalId })).status).toBe(201);
      const res = await server.api.post(`/api/v1/members/${encodeURIComponent(externalId)}/points`, { amount: 3 });
      expect(res.body.member).toMatchObject({ externalId, points: 3 });
    }
    const malformed = await server.api.get('/api/v1/members/%C3%28/points');
    expect(malformed.status).toBe(400);
    expect(malformed.body.message).toMatch(/percent-encod/);
  });

  it('refuses to change a transaction once written (append-only ledger)', () => {
    expect(() => server.ctx.db.prepare('UPDATE transactions SET amount = 1').run()).toThrow(/append-only/);
    expect(() => server.ctx.db.prepare('DELETE FROM transactions').run()).toThrow(/append-only/);
  });
});
