import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
const MEMBERS = 20;
const REQUESTS = 2_000;

beforeAll(async () => {
  server = await startTestServer();
  for (let i = 0; i < MEMBERS; i++) await server.api.post('/api/v1/members', { externalId: `m${i}` });
});
afterAll(() => server.stop());

describe('concurrent awards and deductions', () => {
  it(`keeps every acknowledged change and the invariant across ${REQUESTS} concurrent requests`, async () => {
    // Deterministic mix: mostly awards, with deductions big enough to hit "Insufficient points" sometimes.
    const plan = Array.from({ length: REQUESTS }, (_, i) => ({
      member: `m${i % MEMBERS}`,
      amount: i % 3 === 2 ? -((i % 17) + 5) : (i % 13) + 1,
    }));
    const responses = await Promise.all(plan.map((p) => server.api.post(`/api/v1/members/${p.member}/points`, { amount: p.amount })));

    const acknowledged = new Map<string, { sum: number; count: number; ids: Set<string> }>();
    responses.forEach((res, i) => {
      const { member, amount } = plan[i]!;
      if (res.status === 400) {
        expect(amount).toBeLessThan(0);
        expect(res.body.error).toBe('Insufficient points');
        return;
      }
      expect(res.status).toBe(200);
      const entry = acknowledged.get(member) ?? { sum: 0, count: 0, ids: new Set() };
      entry.sum += amount;
      entry.count += 1;
      entry.ids.add(res.body.transaction.id);
      acknowledged.set(member, entry);
    });
    expect(responses.filter((r) => r.status === 200).length).toBeGreaterThan(REQUESTS / 2);

    expect(checkLedger(server.ctx.db)).toEqual([]);
    for (const [member, entry] of acknowledged) {
      const points = await server.api.get(`/api/v1/members/${member}/points?history=true&limit=100`);
      expect(points.body.points).toBe(entry.sum);
      const row = server.ctx.db.prepare(
        'SELECT count(*) AS n FROM transactions t JOIN members m ON m.id = t.member_id WHERE m.external_id = ?',
      ).get(member) as { n: number };
      expect(row.n).toBe(entry.count);
      const stored = server.ctx.db.prepare(
        'SELECT t.public_id AS id FROM transactions t JOIN members m ON m.id = t.member_id WHERE m.external_id = ?',
      ).all(member) as { id: string }[];
      expect(new Set(stored.map((s) => s.id))).toEqual(entry.ids);
    }
  });
});
