import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOperator, projectPath, type AdminBrowser } from './helpers/admin.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

// The Overview and the points report through the admin's API: what the figures say after real
// awards, deductions, an import and an expiry, for the operator's project only, as JSON and CSV.

let server: TestServer;
let viewer: AdminBrowser;
const clock = new TestClock(new Date('2026-06-10T12:00:00.000Z'));
const at = (rest: string) => projectPath(server.projectId, rest);

beforeAll(async () => {
  server = await startTestServer({ clock });
  viewer = await makeOperator(server, 'viewer@shop.example', 'viewer');
});
afterAll(() => server.stop());

describe("the admin's Overview", () => {
  it('counts what the ledger did in the range: awards and imports issued, deductions reversed, new members', async () => {
    const { api } = server;
    expect((await api.post('/api/v1/members', { externalId: 'ann' })).status).toBe(201);
    expect((await api.post('/api/v1/members/ann/points', { amount: 300 })).status).toBe(200);
    expect((await api.post('/api/v1/members/ann/points', { amount: -50 })).status).toBe(200);
    const imported = await api.post('/api/v1/members/import', { batchId: 'overview', rows: [{ externalId: 'bob', balance: 1000 }] });
    expect(imported.status, imported.text).toBe(200);

    const res = await viewer.get(at('overview?range=7'));
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({ range: 7, from: '2026-06-04', to: '2026-06-10', timezone: 'UTC' });
    expect(res.body.totals).toMatchObject({ members: 2, newMembers: 2, pointsIssued: 1300, pointsRedeemed: 0, pointsExpired: 0, outstanding: 1250 });
    // Only ann acted; bob's points were brought over by an import, which is nobody's activity.
    expect(res.body.totals.activeMembers).toBe(1);
    expect(res.body.days).toHaveLength(7);
    expect(res.body.days.at(-1)).toMatchObject({ date: '2026-06-10', issued: 1300, outstanding: 1250, newMembers: 2 });
    expect(res.body.earningSources).toEqual(expect.arrayContaining([
      expect.objectContaining({ source: 'import', points: 1000 }), expect.objectContaining({ source: 'api', points: 300 })]));
  });

  it('answers the points-accounting table per day, balanced, as JSON and as a CSV download', async () => {
    const res = await viewer.get(at('points-report?from=2026-06-09&to=2026-06-10'));
    expect(res.status, res.text).toBe(200);
    expect(res.body.days).toEqual([
      { date: '2026-06-09', outstandingStart: 0, earned: 0, earnedReversed: 0, redeemed: 0, redeemedReimbursed: 0, expired: 0, outstandingEnd: 0 },
      { date: '2026-06-10', outstandingStart: 0, earned: 1300, earnedReversed: 50, redeemed: 0, redeemedReimbursed: 0, expired: 0, outstandingEnd: 1250 },
    ]);
    const csv = await viewer.get(at('points-report?from=2026-06-10&to=2026-06-10&format=csv'));
    expect(csv.status).toBe(200);
    expect(csv.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(csv.text.trim().split('\n')).toEqual([
      'date,outstandingStart,earned,earnedReversed,redeemed,redeemedReimbursed,expired,outstandingEnd', '2026-06-10,0,1300,50,0,0,0,1250']);
  });

  it('refuses a range it does not offer and dates that are not dates, naming them', async () => {
    const range = await viewer.get(at('overview?range=14'));
    expect(range.status).toBe(400);
    expect(range.body.message).toMatch(/"range" must be one of 7, 30, 90, 365/);
    const dates = await viewer.get(at('points-report?from=June&to=2026-06-10'));
    expect(dates.status).toBe(400);
    expect(dates.body.message).toMatch(/"from" must be a date/);
  });
});
