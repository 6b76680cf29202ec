import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { punchcardJson } from './helpers/cli.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from './helpers/fake-woocommerce.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';
import { widgetClient } from './helpers/widget.ts';

let server: TestServer;
let store: FakeWooCommerce;
let storeId: string;
let couponReward: string;
let customReward: string;

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date('2026-01-15T12:00:00Z')) });
  store = await startFakeWooCommerce();
  const connected = await server.api.post('/api/commerce/connect', {
    siteUrl: store.url, consumerKey: store.consumerKey, consumerSecret: store.consumerSecret, organizationId: 'org_1',
  });
  expect(connected.status, connected.text).toBe(201);
  storeId = connected.body.id;
  const reward = await server.api.post('/api/v1/rewards', { name: '15% off', type: 'COUPON', pointsCost: 100, discountConfig: { type: 'PERCENTAGE', value: 15 } });
  expect(reward.status, reward.text).toBe(201);
  couponReward = reward.body.id;
  customReward = (await server.api.post('/api/v1/rewards', { name: 'Thank-you call', type: 'CUSTOM', pointsCost: 10 })).body.id;
  for (const externalId of ['ada', 'bob', 'cy', 'dee']) {
    expect((await server.api.post('/api/v1/members', { externalId, email: `${externalId}@shop.example` })).status).toBe(201);
    await server.api.post(`/api/v1/members/${externalId}/points`, { amount: 1000 });
  }
});
afterAll(async () => {
  await server.stop();
  await store.stop();
});

const claimsOf = async (externalId: string) => (await server.api.get(`/api/v1/members/${externalId}/claims`)).body.claims;

describe('claiming a COUPON reward with a connected store', () => {
  it('creates a one-use coupon in the store and answers the claim with the store\'s code', async () => {
    const res = await server.api.post(`/api/v1/rewards/${couponReward}/redeem`, { externalId: 'ada' });
    expect(res.status, res.text).toBe(200);
    const code = res.body.claim.couponCode as string;
    const coupon = [...store.coupons.values()].find((c) => c.code === code);
    expect(coupon).toMatchObject({ discount_type: 'percent', amount: '15.00', usage_limit: 1, usage_limit_per_user: 1, email_restrictions: ['ada@shop.example'] });
    expect(store.callsTo('POST', '/wp-json/wc/v3/coupons').every((call) => call.authorized)).toBe(true);
    expect((await claimsOf('ada'))[0]).toMatchObject({ id: res.body.claim.id, couponCode: code });
    expect(res.body.member.points).toBe(900);
  });

  it('through the widget too', async () => {
    const shopper = widgetClient(server.url, { publicKey: server.publishableKey, widgetSecret: server.widgetSecret }, 'bob', server.clock.now);
    const res = await shopper.post('/rewards', { rewardId: couponReward });
    expect(res.status, res.text).toBe(200);
    expect([...store.coupons.values()].map((c) => c.code)).toContain(res.body.claim.couponCode);
  });

  it('keeps the claim when the store is down; a retried job creates the coupon and the member sees it then', async () => {
    store.goDown();
    const res = await server.api.post(`/api/v1/rewards/${couponReward}/redeem`, { externalId: 'cy' });
    expect(res.status, res.text).toBe(200);
    expect(res.body.claim.couponCode).toBeUndefined();
    expect(res.body.member.points).toBe(900);
    expect((await claimsOf('cy'))[0].couponCode).toBeUndefined();
    const job = server.ctx.db.prepare("SELECT c.status, c.attempts, c.last_error FROM commerce_coupons c JOIN reward_claims r ON r.id = c.claim_id WHERE r.public_id = ?")
      .get(res.body.claim.id);
    expect(job).toMatchObject({ status: 'PENDING', attempts: 1, last_error: expect.stringContaining('could not be reached') });

    // Still down when the retry falls due: the next one waits longer.
    server.clock.advance(61_000);
    expect(await server.coupons.runDue()).toBe(1);
    expect((await claimsOf('cy'))[0].couponCode).toBeUndefined();

    store.down = false;
    server.clock.advance(4 * 60_000);
    expect(await server.coupons.runDue()).toBe(0); // five minutes after the second failure, not yet
    server.clock.advance(61_000);
    expect(await server.coupons.runDue()).toBe(1);
    const code = (await claimsOf('cy'))[0].couponCode;
    expect(code).toMatch(/^[a-z0-9]{4}-[a-z0-9]{4}-[a-z0-9]{4}$/);
    expect([...store.coupons.values()].filter((c) => c.code === code)).toHaveLength(1);
    expect(await server.coupons.runDue()).toBe(0);
  });
});

describe('POST /api/commerce/coupons', () => {
  it('creates the coupon for a claim, maps the discount type, and refuses a second one', async () => {
    const claim = (await server.api.post(`/api/v1/rewards/${customReward}/redeem`, { externalId: 'dee' })).body.claim;
    const res = await server.api.post('/api/commerce/coupons', { storeId, rewardClaimId: claim.id, discountType: 'FIXED_PRODUCT', discountValue: 7.5 });
    expect(res.status, res.text).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^cpn_/), storeId, rewardClaimId: claim.id, code: expect.any(String), status: 'CREATED', discountType: 'FIXED_PRODUCT',
      discountValue: 7.5, storeCouponId: expect.any(Number),
    });
    expect(store.coupons.get(res.body.storeCouponId)).toMatchObject({ code: res.body.code, discount_type: 'fixed_product', amount: '7.50', email_restrictions: ['dee@shop.example'] });
    expect((await claimsOf('dee'))[0].couponCode).toBe(res.body.code);

    const again = await server.api.post('/api/commerce/coupons', { storeId, rewardClaimId: claim.id, discountType: 'FIXED_CART', discountValue: 5 });
    expect(again.status).toBe(409);
    expect((await server.api.post('/api/commerce/coupons', { storeId, rewardClaimId: 'clm_nope', discountType: 'FIXED_CART', discountValue: 5 })).status).toBe(404);
    expect((await server.api.post('/api/commerce/coupons', { storeId: 'store_nope', rewardClaimId: claim.id, discountType: 'FIXED_CART', discountValue: 5 })).status).toBe(404);
  });

  it('answers 202 while the store is down and the job creates the coupon later', async () => {
    const claim = (await server.api.post(`/api/v1/rewards/${customReward}/redeem`, { externalId: 'dee' })).body.claim;
    store.goDown();
    const res = await server.api.post('/api/commerce/coupons', { storeId, rewardClaimId: claim.id, discountType: 'FIXED_CART', discountValue: 5 });
    expect(res.status, res.text).toBe(202);
    expect(res.body).toMatchObject({ status: 'PENDING', code: null, storeCouponId: null });
    store.down = false;
    server.clock.advance(61_000);
    expect(await server.coupons.runDue()).toBe(1);
    const code = (await claimsOf('dee'))[0].couponCode;
    expect([...store.coupons.values()].find((c) => c.code === code)).toMatchObject({ discount_type: 'fixed_cart', amount: '5.00' });
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });
});

describe('a store coupon that cannot be made (issue 47)', () => {
  const job = (claimId: string) => server.ctx.db.prepare(`SELECT c.status, c.attempts, c.code, c.last_error FROM commerce_coupons c
    JOIN reward_claims r ON r.id = c.claim_id WHERE r.public_id = ?`).get(claimId) as { status: string; attempts: number; code: string; last_error: string | null };

  it('a code the store answers twice (another claim\'s), or unprintable, is not used: the claim answers 200, and the retry asks for a new code', async () => {
    for (const externalId of ['eve', 'fay', 'gil']) {
      expect((await server.api.post('/api/v1/members', { externalId, email: `${externalId}@shop.example` })).status).toBe(201);
      await server.api.post(`/api/v1/members/${externalId}/points`, { amount: 1000 });
    }
    const first = await server.api.post(`/api/v1/rewards/${couponReward}/redeem`, { externalId: 'eve' });
    const taken = first.body.claim.couponCode as string;
    store.answerCode = taken;
    try {
      const res = await server.api.post(`/api/v1/rewards/${couponReward}/redeem`, { externalId: 'fay' });
      expect(res.status, res.text).toBe(200);
      expect(res.body.claim.couponCode).toBeUndefined();
      expect(res.body.member.points).toBe(900);
      const asked = store.callsTo('POST', '/wp-json/wc/v3/coupons').at(-1)!.body.code as string;
      const waiting = job(res.body.claim.id);
      expect(waiting).toMatchObject({ status: 'PENDING', attempts: 1, last_error: expect.stringContaining(`the code of claim ${first.body.claim.id}`) });
      expect(waiting.code).not.toBe(asked);

      // An unprintable code (ESC, BEL) is not used either.
      store.answerCode = 'x\u001b[2J\u0007';
      server.clock.advance(61_000);
      expect(await server.coupons.runDue()).toBe(1);
      expect(job(res.body.claim.id)).toMatchObject({ status: 'PENDING', attempts: 2, last_error: expect.stringContaining('not printable') });

      store.answerCode = null;
      server.clock.advance(5 * 60_000 + 1_000);
      expect(await server.coupons.runDue()).toBe(1);
      const code = (await claimsOf('fay'))[0].couponCode;
      expect(code).toBe(job(res.body.claim.id).code.toLowerCase());
      expect(code).not.toBe(taken);
      expect((await claimsOf('eve'))[0].couponCode).toBe(taken);
    } finally {
      store.answerCode = null;
    }
  });

  it('gives up after 16 attempts over about three days, returns the points and the stock, says so in the log and in doctor, and retries no more', async () => {
    const limited = (await server.api.post('/api/v1/rewards', { name: '5 off', type: 'COUPON', pointsCost: 100, stock: 3, discountConfig: { type: 'FIXED_CART', value: 5 } })).body.id;
    const warnings: string[] = [];
    const spy = vi.spyOn(server.ctx.log, 'warn').mockImplementation((message: string) => { warnings.push(message); });
    store.goDown();
    try {
      const claimed = await server.api.post(`/api/v1/rewards/${limited}/redeem`, { externalId: 'gil' });
      expect(claimed.status, claimed.text).toBe(200);
      expect(claimed.body.member.points).toBe(900);
      const started = server.clock.now().getTime();
      for (let attempt = 2; attempt <= 16; attempt++) {
        server.clock.advance(6 * 60 * 60_000);
        expect(await server.coupons.runDue(), `attempt ${attempt}`).toBe(1);
      }
      expect(job(claimed.body.claim.id)).toMatchObject({ status: 'FAILED', attempts: 16 });
      expect((await server.api.get('/api/v1/members/gil')).body.points).toBe(1000);
      expect((await server.api.get(`/api/v1/rewards/${limited}`)).body.stock).toBe(3);
      const returned = (await server.api.get('/api/v1/members/gil/points?history=true&limit=1')).body.transactions[0];
      expect(returned).toMatchObject({ amount: 100, type: 'REFUNDED', source: 'reward', actor: 'system', metadata: { claimId: claimed.body.claim.id } });
      expect(warnings).toEqual([`commerce: the store coupon of claim ${claimed.body.claim.id} failed for good after 16 attempt(s); the 100 points spent on it were returned to the member`]);
      expect(server.clock.now().getTime() - started).toBeLessThan(4 * 24 * 60 * 60_000);
      server.clock.advance(7 * 24 * 60 * 60_000);
      expect(await server.coupons.runDue()).toBe(0);
      // Its coupon cannot be asked for again (its points are back): the member claims again instead.
      const again = await server.api.post('/api/commerce/coupons', { storeId, rewardClaimId: claimed.body.claim.id, discountType: 'FIXED_CART', discountValue: 5 });
      expect(again.status).toBe(409);
      expect(punchcardJson(['--db', server.dbPath, 'doctor']).coupons).toEqual({ pending: 0, failed: 1 });
    } finally {
      spy.mockRestore();
      store.down = false;
    }
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });
});
