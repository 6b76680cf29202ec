import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { findMember } from '../src/domain/members/members.ts';
import { convertReferral, regenerateReferralCode } from '../src/domain/referrals/referrals.ts';
import { client } from './helpers/http.ts';
import { startTestServer, TestClock, tableCounts, type TestServer } from './helpers/server.ts';

let server: TestServer;
const clock = new TestClock(new Date('2026-07-15T10:00:00.000Z'));
const DAY = 86_400_000;

beforeAll(async () => {
  server = await startTestServer({ clock });
  server.ctx.db.prepare(`INSERT INTO webhooks (id, project_id, url, events, secret, created_at, updated_at)
    VALUES ('whk_test', ?, 'https://hooks.example/in', ?, 'x', ?, ?)`).run(server.projectId, JSON.stringify(['referral.converted']), clock.current.toISOString(), clock.current.toISOString());
  await server.api.patch('/api/v1/project', { referral: { referralUrl: 'https://shop.example/join?utm=ref', referrerReward: 100, refereeReward: 50 } });
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

const codeOf = async (externalId: string) => {
  await server.api.post('/api/v1/members', { externalId });
  const res = await server.api.get(`/api/v1/referrals/stats/${externalId}`);
  expect(res.status, res.text).toBe(200);
  return res.body.referralCode as string;
};
const apply = (externalId: string, referralCode: string, extra: Record<string, unknown> = {}) =>
  server.api.post('/api/v1/referrals/apply', { externalId, referralCode, ...extra });
const points = async (externalId: string) => (await server.api.get(`/api/v1/members/${externalId}`)).body.points as number;

describe('referral codes and stats', () => {
  it('gives every member one 8-character readable code on first use and a share link on the project URL', async () => {
    const code = await codeOf('rita');
    expect(code).toMatch(/^[A-HJ-NP-Z2-9]{8}$/);
    const stats = await server.api.get('/api/v1/referrals/stats/rita');
    expect(stats.body).toEqual({
      referralCode: code,
      shareLink: `https://shop.example/join?utm=ref&ref=${code}`,
      stats: { totalReferrals: 0, pendingReferrals: 0, convertedReferrals: 0, totalPointsEarned: 0 },
      rewards: { referrerReward: 100, refereeReward: 50 },
      limits: { perMonth: null, total: null, usedThisMonth: 0, usedTotal: 0 },
    });
    const regenerated = regenerateReferralCode(server.ctx.db, server.projectId, 'rita', server.publicUrl, clock.now());
    expect(regenerated.referralCode).not.toBe(code);
    expect((await apply('late', code)).status).toBe(404);
    expect((await server.api.get('/api/v1/referrals/stats/rita')).body.referralCode).toBe(regenerated.referralCode);
  });
});

describe('POST /referrals/apply', () => {
  it('creates the referee, pays both at sign-up (default), emits referral.converted and awards referralsConverted badges', async () => {
    await server.api.post('/api/v1/badges', { name: 'Ambassador', rarity: 'RARE', criteria: { type: 'referralsConverted', threshold: 1 } });
    const code = await codeOf('sam');
    const res = await apply('newcomer', code.toLowerCase(), { email: 'new@example.com', name: 'New' });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      success: true,
      referral: { id: expect.stringMatching(/^ref_/), referralCode: code, referrerExternalId: 'sam', refereeExternalId: 'newcomer', status: 'CONVERTED' },
      member: { externalId: 'newcomer', email: 'new@example.com', name: 'New', points: 50 },
      rewardsAwarded: { referrer: 100, referee: 50 },
    });
    expect(await points('sam')).toBe(100);
    const badges = await server.api.get('/api/v1/members/sam/badges');
    expect(badges.body.badges.map((b: { name: string }) => b.name)).toEqual(['Ambassador']);
    const [event] = server.ctx.db.prepare("SELECT data FROM events WHERE type = 'referral.converted'").all() as { data: string }[];
    expect(JSON.parse(event!.data)).toMatchObject({ referrerExternalId: 'sam', refereeExternalId: 'newcomer', referrerPoints: 100 });
    const stats = await server.api.get('/api/v1/referrals/stats/sam');
    expect(stats.body.stats).toEqual({ totalReferrals: 1, pendingReferrals: 0, convertedReferrals: 1, totalPointsEarned: 100 });
  });

  it('answers 403 for one’s own code, 409 for a member referred twice, 404 for an unknown code — and writes nothing', async () => {
    const code = await codeOf('tom');
    const other = await codeOf('uma');
    await apply('vic', code);
    const before = tableCounts(server);
    expect((await apply('tom', code)).status).toBe(403);
    const twice = await apply('vic', other);
    expect(twice.status).toBe(409);
    expect(twice.body.message).toContain('already been referred');
    expect((await apply('ghost', 'ZZZZZZZZ')).status).toBe(404);
    expect(tableCounts(server)).toEqual(before);
    expect((await server.api.delete('/api/v1/members/uma')).status).toBe(200);
    expect((await apply('after-erasure', other)).status).toBe(404);
  });

  it('on FIRST_ORDER, stays PENDING until convertReferral, which pays the referrer once', async () => {
    await server.api.patch('/api/v1/project', { referral: { conversion: 'FIRST_ORDER' } });
    const code = await codeOf('wes');
    const res = await apply('buyer', code);
    expect(res.body).toMatchObject({ referral: { status: 'PENDING' }, rewardsAwarded: { referrer: 0, referee: 50 } });
    expect((await server.api.get('/api/v1/referrals/stats/wes')).body.stats).toMatchObject({ pendingReferrals: 1, convertedReferrals: 0 });
    const buyer = findMember(server.ctx.db, server.projectId, 'buyer')!;
    const converted = await server.ctx.write(() => convertReferral(server.ctx.db, buyer, clock.now()));
    expect(converted).toMatchObject({ referrerPoints: 100, referral: { status: 'CONVERTED', referrerRewarded: true } });
    expect(await server.ctx.write(() => convertReferral(server.ctx.db, buyer, clock.now()))).toBeNull();
    expect(await points('wes')).toBe(100);
    await server.api.patch('/api/v1/project', { referral: { conversion: 'SIGNUP' } });
  });

  it('applies but does not pay the referrer past the monthly limit (project time zone) or the total limit', async () => {
    await server.api.patch('/api/v1/project', { timezone: 'America/New_York', referral: { limits: { perMonth: 2, total: 3 } } });
    clock.current = new Date('2026-08-01T03:00:00.000Z'); // still July 31 in New York
    const code = await codeOf('xena');
    for (const referee of ['x1', 'x2']) expect((await apply(referee, code)).body.rewardsAwarded.referrer).toBe(100);
    const third = await apply('x3', code);
    expect(third.status).toBe(200);
    expect(third.body).toMatchObject({ referral: { status: 'CONVERTED', referrerRewarded: false }, rewardsAwarded: { referrer: 0, referee: 50 } });
    clock.advance(DAY / 8); // 06:00 UTC: August in New York, a new month
    expect((await apply('x4', code)).body.rewardsAwarded.referrer).toBe(100);
    expect((await apply('x5', code)).body.rewardsAwarded.referrer).toBe(0); // total of 3 reached
    const stats = await server.api.get('/api/v1/referrals/stats/xena');
    expect(stats.body.stats).toEqual({ totalReferrals: 5, pendingReferrals: 0, convertedReferrals: 5, totalPointsEarned: 300 });
    expect(stats.body.limits).toEqual({ perMonth: 2, total: 3, usedThisMonth: 1, usedTotal: 3 });
    expect(await points('xena')).toBe(300);
    await server.api.patch('/api/v1/project', { timezone: 'UTC', referral: { limits: { perMonth: null, total: null } } });
  });
});

describe('bad input and tenancy', () => {
  it('answers 400 naming the field and writes nothing', async () => {
    const code = await codeOf('yara');
    const before = tableCounts(server);
    for (const [body, field] of [[{ referralCode: code }, 'externalId'], [{ externalId: 'z' }, 'referralCode'], [{ externalId: 'z', referralCode: '' }, 'referralCode'],
      [{ externalId: 'z', referralCode: code, email: 'not-an-email' }, 'email'], [{ externalId: 'z', referralCode: code, name: 5 }, 'name']] as const) {
      const res = await server.api.post('/api/v1/referrals/apply', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message).toContain(field);
    }
    expect(tableCounts(server)).toEqual(before);
  });

  it("another project's code or member answers 404 and changes nothing", async () => {
    const b = server.addProject('Tenant B');
    await b.api.post('/api/v1/members', { externalId: 'b-member' });
    const bCode = (await b.api.get('/api/v1/referrals/stats/b-member')).body.referralCode as string;
    const aCode = await codeOf('zed');
    const before = tableCounts(server);
    expect((await apply('zed-friend', bCode)).status).toBe(404);
    expect((await server.api.get('/api/v1/referrals/stats/b-member')).status).toBe(404);
    expect((await b.api.post('/api/v1/referrals/apply', { externalId: 'b-friend', referralCode: aCode })).status).toBe(404);
    expect(tableCounts(server)).toEqual(before);
  });
});

describe('share links without a referral page', () => {
  it('are this server\'s /r/CODE: a landing page (escaped, with the pages\' headers) until the shop sets its URL, then a redirect there', async () => {
    const shop = server.addProject('<b>Tea</b> & "Co"');
    expect((await shop.api.post('/api/v1/members', { externalId: 'lena' })).status).toBe(201);
    const stats = await shop.api.get('/api/v1/referrals/stats/lena');
    const code = stats.body.referralCode as string;
    expect(stats.body.shareLink).toBe(`${server.url}/r/${code}`);

    const anon = client(server.url);
    const landing = await anon.get(`/r/${code.toLowerCase()}`);
    expect(landing.status).toBe(200);
    expect(landing.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(landing.headers['content-security-policy']).toMatch(/default-src 'none'.*frame-ancestors 'none'/);
    expect(landing.headers['x-content-type-options']).toBe('nosniff');
    expect(landing.headers['referrer-policy']).toBe('no-referrer');
    expect(landing.text).toContain('You are invited to &#60;b&#62;Tea&#60;/b&#62; &#38; &#34;Co&#34;');
    expect(landing.text).not.toContain('<b>Tea</b>');
    expect(landing.text).toContain(`<code id="referral-code">${code}</code>`);

    expect((await shop.api.patch('/api/v1/project', { referral: { referralUrl: 'https://tea.example/welcome?src=x' } })).status).toBe(200);
    const redirect = await anon.get(`/r/${code}`);
    expect(redirect.status).toBe(302);
    expect(redirect.headers.location).toBe(`https://tea.example/welcome?src=x&ref=${code}`);
    expect((await shop.api.get('/api/v1/referrals/stats/lena')).body.shareLink).toBe(`https://tea.example/welcome?src=x&ref=${code}`);

    for (const path of ['/r/NOSUCHCD', `/r/${'A'.repeat(200)}`, '/r/%3Cscript%3E']) {
      const missing = await anon.get(path);
      expect(missing.status, path).toBe(404);
      expect(missing.text).toContain('This invitation link is not valid');
      expect(missing.text).not.toContain('<script>');
    }
  });
});
