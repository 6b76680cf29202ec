import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, TestClock, tableCounts, type TestServer } from './helpers/server.ts';

let server: TestServer;
// 23:00 on 10 March in Paris (UTC+1).
const clock = new TestClock(new Date('2026-03-10T22:00:00.000Z'));
const MINUTE = 60_000;

beforeAll(async () => {
  server = await startTestServer({ clock });
  const project = await server.api.patch('/api/v1/project', {
    timezone: 'Europe/Paris', socialShare: { pointsPerShare: 20, maxSharesPerDay: 2, cooldownMinutes: 30, platforms: ['x', 'facebook', 'email'] },
  });
  expect(project.status, project.text).toBe(200);
  for (const externalId of ['sharer', 'other']) expect((await server.api.post('/api/v1/members', { externalId })).status).toBe(201);
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

const status = (externalId: string, api = server.api) => api.get(`/api/v1/members/${externalId}/social-share`);
const share = (externalId: string, body: Record<string, unknown>, api = server.api) => api.post(`/api/v1/members/${externalId}/social-share`, body);

describe('social share', () => {
  it('shows what sharing pays before any share', async () => {
    const res = await status('sharer');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      platforms: ['x', 'facebook', 'email'], pointsPerShare: 20, maxSharesPerDay: 2, cooldownMinutes: 30, todayShares: 0, canShare: true, cooldownEndsAt: null,
    });
  });

  it('pays per share, then enforces the cooldown and the daily limit with Retry-After, counting local days', async () => {
    const first = await share('sharer', { platform: 'twitter', shareType: 'referral' });
    expect(first.status, first.text).toBe(200);
    const cooldownEndsAt = new Date(clock.current.getTime() + 30 * MINUTE).toISOString();
    expect(first.body).toEqual({ success: true, pointsAwarded: 20, basePoints: 20, multiplier: 1, cooldownEndsAt, todayShares: 1, member: { points: 20 } });
    const history = (await server.api.get('/api/v1/members/sharer/points?history=true')).body.transactions;
    expect(history[0]).toMatchObject({ amount: 20, source: 'share', description: 'Shared on x' });
    expect((await status('sharer')).body).toMatchObject({ todayShares: 1, canShare: false, cooldownEndsAt });

    clock.advance(10 * MINUTE);
    const cooling = await share('sharer', { platform: 'facebook' });
    expect(cooling.status).toBe(429);
    expect(cooling.headers['retry-after']).toBe('1200');

    clock.advance(20 * MINUTE); // 23:30 in Paris
    expect((await share('sharer', { platform: 'facebook' })).status).toBe(200);
    clock.advance(30 * MINUTE); // 00:00 on 11 March in Paris: a new day
    expect((await status('sharer')).body).toMatchObject({ todayShares: 0, canShare: true });
    expect((await share('sharer', { platform: 'email' })).status).toBe(200);
    clock.advance(30 * MINUTE);
    expect((await share('sharer', { platform: 'email' })).status).toBe(200);
    clock.advance(30 * MINUTE); // 01:00 in Paris
    const over = await share('sharer', { platform: 'x' });
    expect(over.status).toBe(429);
    expect(over.body.message).toMatch(/maxSharesPerDay/);
    expect(over.headers['retry-after']).toBe(String(23 * 3600));
    expect((await status('sharer')).body).toMatchObject({ todayShares: 2, canShare: false, cooldownEndsAt: null });
    expect((await server.api.get('/api/v1/members/sharer')).body.points).toBe(80);
  });

  it('applies a share multiplier event', async () => {
    const event = await server.api.post('/api/v1/multipliers', {
      name: 'Share week', multiplier: 1.5, startsAt: clock.current.toISOString(),
      endsAt: new Date(clock.current.getTime() + 60 * MINUTE).toISOString(), sources: ['share'],
    });
    expect(event.status, event.text).toBe(201);
    const res = await share('other', { platform: 'x' });
    expect(res.body).toMatchObject({ pointsAwarded: 30, multiplier: 1.5, member: { points: 30 } });
  });

  it('refuses bad bodies and a platform the project does not offer with 400 naming the field, writing nothing', async () => {
    const before = tableCounts(server);
    const cases: [unknown, RegExp][] = [
      [{}, /platform/], [{ platform: 'myspace' }, /platform/], [{ platform: 'linkedin' }, /platform/], [{ platform: 7 }, /platform/],
      [{ platform: 'x', shareType: 'Not OK' }, /shareType/], [{ platform: 'x', points: 100 }, /points/],
    ];
    for (const [body, message] of cases) {
      const res = await server.api.post('/api/v1/members/other/social-share', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toMatch(message);
    }
    expect((await server.api.get('/api/v1/members/other/social-share?platform=x')).status).toBe(400);
    expect(tableCounts(server)).toEqual(before);
  });

  it("answers 404 for unknown or another project's members and changes nothing", async () => {
    const project = server.addProject('Other');
    expect((await project.api.post('/api/v1/members', { externalId: 'stranger' })).status).toBe(201);
    const before = tableCounts(server);
    expect((await share('stranger', { platform: 'x' })).status).toBe(404);
    expect((await status('stranger')).status).toBe(404);
    expect((await share('sharer', { platform: 'facebook' }, project.api)).status).toBe(404);
    expect((await status('nobody')).status).toBe(404);
    expect(tableCounts(server)).toEqual(before);
  });
});
