import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { releaseDuePendingPoints } from '../src/domain/ledger/pending.ts';
import { DAY_MS } from '../src/shared/clock.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

// The release pass reads the due rows before its write: a row another pass released meanwhile
// (the CLI's `punchcard expire` beside the server's minute) must not be paid twice.

let server: TestServer;
const clock = new TestClock(new Date('2026-05-01T09:00:00.000Z'));

beforeAll(async () => {
  server = await startTestServer({ clock });
});
afterAll(() => server.stop());

describe('releasing pending points', () => {
  it('pays a due row once when two passes read it before either writes', async () => {
    const imported = await server.api.post('/api/v1/members/import', { batchId: 'twice', pendingDays: 1, rows: [{ externalId: 'kim', balance: 10, pending: 30 }] });
    expect(imported.status, imported.text).toBe(200);
    clock.advance(2 * DAY_MS);
    const passes = await Promise.all([0, 1].map(() => releaseDuePendingPoints(server.ctx.db, server.ctx.write, clock.now())));
    expect(passes.reduce((sum, pass) => sum + pass.points, 0)).toBe(30);
    const kim = (await server.api.get('/api/v1/members/kim/points')).body;
    expect(kim).toMatchObject({ points: 40, pendingPoints: 0 });
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });
});
