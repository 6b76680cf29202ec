import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { request } from './helpers/http.ts';
import { FakeWooCommerce, startFakeWooCommerce, wooCustomer, wooOrder, type OrderSpec } from './helpers/fake-woocommerce.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
let store: FakeWooCommerce;
let storeId: string;

beforeAll(async () => {
  server = await startTestServer();
  store = await startFakeWooCommerce();
  const connected = await server.api.post('/api/commerce/connect', {
    siteUrl: store.url, consumerKey: store.consumerKey, consumerSecret: store.consumerSecret, organizationId: 'org_1',
  });
  expect(connected.status, connected.text).toBe(201);
  storeId = connected.body.id;
});
afterAll(async () => {
  await server.stop();
  await store.stop();
});

const settings = (patch: Record<string, unknown>) => server.api.patch(`/api/commerce/stores/${storeId}/settings`, patch);
const DEFAULTS = {
  pointsPerDollar: 1, rounding: 'FLOOR', minOrderAmount: null, excludeShipping: true, excludeTax: true, excludeGuest: true,
  pointsOnStatus: 'completed', productOverrides: {}, memberIdentifier: 'customerId',
};

async function send(spec: OrderSpec) {
  const res = await store.deliverOne('order.updated', wooOrder(spec));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { received: true; outcome: string };
}

async function balance(externalId: string): Promise<number | null> {
  const res = await server.api.get(`/api/v1/members/${encodeURIComponent(externalId)}`);
  return res.status === 404 ? null : res.body.points;
}

const history = async (externalId: string) =>
  (await server.api.get(`/api/v1/members/${encodeURIComponent(externalId)}/points?history=true&limit=100`)).body.transactions
    .map((t: { amount: number; type: string }) => [t.type, t.amount]).reverse();

// The default order: 2 × 25.00 (tax 5.00) of product 11, 1 × 30.00 (tax 3.00) of product 12, shipping 10.00 + 1.00 tax:
// total 99.00, of which 80.00 earns (tax and shipping excluded by default).
describe('the order life cycle, with exact balances after each step', () => {
  it('processing → completed → partial refund → second refund → cancelled → completed again', async () => {
    await settings(DEFAULTS);
    const customer = 101;
    const id = 5001;
    const at = (n: number) => `2026-01-15T12:00:0${n}`;
    expect((await send({ id, status: 'processing', customerId: customer, modified: at(1) })).outcome).toBe('order recorded');
    expect(await balance('101')).toBe(0); // the member exists (created from the order), nothing earned at processing

    await send({ id, status: 'completed', customerId: customer, modified: at(2) });
    expect(await balance('101')).toBe(80);

    // A refund of 19.80 is 20% of 99.00: floor(80 × 0.2) = 16 back.
    await send({ id, status: 'completed', customerId: customer, refunds: [{ id: 9001, amount: '19.80' }], modified: at(3) });
    expect(await balance('101')).toBe(64);

    // A second refund of 24.75: refunds are 44.55 of 99.00 in all, floor(80 × 0.45) = 36, so 20 more.
    await send({ id, status: 'completed', customerId: customer, refunds: [{ id: 9002, amount: '24.75' }, { id: 9001, amount: '19.80' }], modified: at(4) });
    expect(await balance('101')).toBe(44);

    await send({ id, status: 'cancelled', customerId: customer, refunds: [{ id: 9002, amount: '24.75' }, { id: 9001, amount: '19.80' }], modified: at(5) });
    expect(await balance('101')).toBe(0);

    await send({ id, status: 'completed', customerId: customer, refunds: [{ id: 9002, amount: '24.75' }, { id: 9001, amount: '19.80' }], modified: at(6) });
    expect(await balance('101')).toBe(44); // earns again, less what was refunded

    // Re-sent, in any order, it all changes nothing more.
    for (const n of [6, 2, 4, 6, 5, 1]) {
      const status = n === 5 ? 'cancelled' : n === 1 ? 'processing' : 'completed';
      await send({ id, status, customerId: customer, refunds: n >= 4 ? [{ id: 9002, amount: '24.75' }, { id: 9001, amount: '19.80' }] : [], modified: at(n) });
    }
    expect(await balance('101')).toBe(44);
    expect(await history('101')).toEqual([['EARNED', 80], ['REFUNDED', -16], ['REFUNDED', -20], ['REFUNDED', -44], ['EARNED', 44]]);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('a refund of the whole order takes back exactly what it earned, once', async () => {
    await settings({ ...DEFAULTS, rounding: 'CEIL' });
    await send({ id: 5002, status: 'completed', customerId: 102, modified: '2026-01-15T12:00:01' });
    expect(await balance('102')).toBe(80);
    const refunds = [{ id: 9101, amount: '33.00' }, { id: 9102, amount: '33.00' }, { id: 9103, amount: '33.00' }];
    await send({ id: 5002, status: 'completed', customerId: 102, refunds: refunds.slice(0, 1), modified: '2026-01-15T12:00:02' });
    expect(await balance('102')).toBe(53); // ceil(80 / 3) = 27 back
    await send({ id: 5002, status: 'refunded', customerId: 102, refunds, modified: '2026-01-15T12:00:03' });
    expect(await balance('102')).toBe(0);
    await send({ id: 5002, status: 'refunded', customerId: 102, refunds, modified: '2026-01-15T12:00:03' });
    expect(await history('102')).toEqual([['EARNED', 80], ['REFUNDED', -27], ['REFUNDED', -53]]);
  });

  it('a cancellation never takes the balance below zero: the shortfall is recorded on the order', async () => {
    await settings(DEFAULTS);
    await send({ id: 5003, status: 'completed', customerId: 103, modified: '2026-01-15T12:00:01' });
    expect((await server.api.post('/api/v1/members/103/points', { amount: -70 })).status).toBe(200); // spent elsewhere
    await send({ id: 5003, status: 'cancelled', customerId: 103, modified: '2026-01-15T12:00:02' });
    expect(await balance('103')).toBe(0);
    const row = server.ctx.db.prepare('SELECT net_points, shortfall, awarded FROM commerce_orders WHERE order_id = 5003').get();
    expect(row).toEqual({ net_points: 70, shortfall: 70, awarded: 0 });
    const last = (await server.api.get('/api/v1/members/103/points?history=true&limit=1')).body.transactions[0];
    expect(last).toMatchObject({ amount: -10, type: 'REFUNDED', source: 'order', actor: `store:${storeId}`, metadata: { shortfall: 70 } });
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('pointsOnStatus processing awards at processing, once, and completed after it adds nothing', async () => {
    await settings({ ...DEFAULTS, pointsOnStatus: 'processing' });
    await send({ id: 5004, status: 'processing', customerId: 104, modified: '2026-01-15T12:00:01' });
    expect(await balance('104')).toBe(80);
    await send({ id: 5004, status: 'completed', customerId: 104, modified: '2026-01-15T12:00:02' });
    expect(await balance('104')).toBe(80);
  });
});

describe('erased members', () => {
  it('a later state of an erased member\'s order changes no ledger; the customer\'s next order makes a new member', async () => {
    await settings(DEFAULTS);
    await send({ id: 5101, status: 'completed', customerId: 150, modified: '2026-01-15T12:00:01' });
    expect((await server.api.delete('/api/v1/members/150')).status).toBe(200);
    // Erasure unlinked the order from the member: it earns and takes back nothing from then on.
    expect((await send({ id: 5101, status: 'cancelled', customerId: 150, modified: '2026-01-15T12:00:02' })).outcome).toBe('order excluded');
    await send({ id: 5102, status: 'completed', customerId: 150, modified: '2026-01-15T12:00:03' });
    expect(await balance('150')).toBe(80);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });
});

describe('duplicates and out-of-order deliveries', () => {
  it('every order of the same three deliveries ends with the same balance', async () => {
    await settings(DEFAULTS);
    const states: Omit<OrderSpec, 'id' | 'customerId'>[] = [
      { status: 'processing', modified: '2026-01-15T12:00:01' },
      { status: 'completed', modified: '2026-01-15T12:00:02' },
      { status: 'completed', refunds: [{ id: 9201, amount: '19.80' }], modified: '2026-01-15T12:00:03' },
    ];
    const orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    for (const [n, sequence] of orders.entries()) {
      const customerId = 200 + n;
      for (const index of [...sequence, ...sequence]) await send({ ...states[index]!, id: 6000 + n, customerId }); // each delivered twice
      expect(await balance(String(customerId)), sequence.join()).toBe(64);
    }
  });

  it('the same delivery sent five times at once awards once', async () => {
    await settings(DEFAULTS);
    const payload = wooOrder({ id: 6100, status: 'completed', customerId: 210, modified: '2026-01-15T12:00:01' });
    const results = await Promise.all(Array.from({ length: 5 }, () => store.deliverOne('order.updated', payload)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await balance('210')).toBe(80);
  });
});

describe('exclusions, multipliers and rounding', () => {
  it('guest orders earn nothing by default; with guests allowed they earn for a member named by their email', async () => {
    await settings(DEFAULTS);
    const before = server.ctx.db.prepare('SELECT count(*) AS n FROM members').get();
    expect((await send({ id: 7001, status: 'completed', customerId: 0, email: 'guest@shop.example', modified: '2026-01-15T12:00:01' })).outcome).toBe('order excluded');
    expect(server.ctx.db.prepare('SELECT count(*) AS n FROM members').get()).toEqual(before);

    await settings({ excludeGuest: false });
    await send({ id: 7002, status: 'completed', customerId: 0, email: 'Guest@Shop.example', modified: '2026-01-15T12:00:01' });
    expect(await balance('guest@shop.example')).toBe(80);
    // The first order stays excluded: an order's exclusion is decided when it is first seen.
    await send({ id: 7001, status: 'completed', customerId: 0, email: 'guest@shop.example', modified: '2026-01-15T12:00:02' });
    expect(await balance('guest@shop.example')).toBe(80);
  });

  it('an order below the minimum amount earns nothing', async () => {
    await settings({ ...DEFAULTS, minOrderAmount: 99.01 });
    expect((await send({ id: 7101, status: 'completed', customerId: 301, modified: '2026-01-15T12:00:01' })).outcome).toBe('order excluded');
    expect(await balance('301')).toBe(0);
    await settings({ minOrderAmount: 99 });
    await send({ id: 7102, status: 'completed', customerId: 301, modified: '2026-01-15T12:00:01' });
    expect(await balance('301')).toBe(80);
  });

  it('shipping and tax count when the store says so', async () => {
    await settings({ ...DEFAULTS, excludeShipping: false });
    await send({ id: 7201, status: 'completed', customerId: 302, modified: '2026-01-15T12:00:01' });
    expect(await balance('302')).toBe(90); // + shipping 10.00 (its tax excluded with the tax)
    await settings({ ...DEFAULTS, excludeTax: false });
    await send({ id: 7202, status: 'completed', customerId: 303, modified: '2026-01-15T12:00:01' });
    expect(await balance('303')).toBe(88); // + tax 8.00 on the items; the shipping and its tax excluded
    await settings({ ...DEFAULTS, excludeShipping: false, excludeTax: false });
    await send({ id: 7203, status: 'completed', customerId: 304, modified: '2026-01-15T12:00:01' });
    expect(await balance('304')).toBe(99);
  });

  it('product multipliers weight their line items, a variation by its own override first', async () => {
    await settings({ ...DEFAULTS, productOverrides: { 11: { multiplier: 2 }, 12: { multiplier: 0 } } });
    await send({ id: 7301, status: 'completed', customerId: 305, modified: '2026-01-15T12:00:01' });
    expect(await balance('305')).toBe(100); // 50.00 × 2 + 30.00 × 0
    await settings({ ...DEFAULTS, productOverrides: { 11: { multiplier: 3 }, 77: { multiplier: 1.5 } } });
    await send({
      id: 7302, status: 'completed', customerId: 306, modified: '2026-01-15T12:00:01',
      lines: [{ productId: 11, variationId: 77, quantity: 1, price: '10.00', tax: '1.00' }, { productId: 11, quantity: 1, price: '10.00', tax: '1.00' }],
    });
    expect(await balance('306')).toBe(45); // 10.00 × 1.5 + 10.00 × 3
  });

  it('rounds by the store\'s mode, with points per dollar', async () => {
    const line = [{ productId: 40, quantity: 1, price: '12.50', tax: '0.00' }];
    const cases: [string, number, number][] = [['FLOOR', 1, 12], ['ROUND', 1, 13], ['CEIL', 1, 13], ['FLOOR', 0.333, 4], ['ROUND', 0.333, 4], ['CEIL', 0.333, 5]];
    for (const [n, [rounding, pointsPerDollar, expected]] of cases.entries()) {
      await settings({ ...DEFAULTS, rounding, pointsPerDollar });
      await send({ id: 7400 + n, status: 'completed', customerId: 400 + n, lines: line, shipping: '0.00', shippingTax: '0.00', modified: '2026-01-15T12:00:01' });
      expect(await balance(String(400 + n)), `${rounding} × ${pointsPerDollar}`).toBe(expected);
    }
  });

  it('a project multiplier event for orders applies to the first award, and a refund takes back its share of the multiplied points', async () => {
    await settings(DEFAULTS);
    const now = server.clock.now();
    const event = await server.api.post('/api/v1/multipliers', {
      name: 'Double order points', multiplier: 2, sources: ['order'],
      startsAt: new Date(now.getTime() - 60_000).toISOString(), endsAt: new Date(now.getTime() + 3_600_000).toISOString(),
    });
    expect(event.status, event.text).toBe(201);
    await send({ id: 7501, status: 'completed', customerId: 501, modified: '2026-01-15T12:00:01' });
    expect(await balance('501')).toBe(160);
    await send({ id: 7501, status: 'completed', customerId: 501, refunds: [{ id: 9501, amount: '19.80' }], modified: '2026-01-15T12:00:02' });
    expect(await balance('501')).toBe(128);
    expect((await server.api.delete(`/api/v1/multipliers/${event.body.id}`)).status).toBe(200);
  });
});

describe('customers', () => {
  it('customer.created makes the member, customer.updated syncs email and name; orders then find that member', async () => {
    await settings(DEFAULTS);
    const created = await store.deliverOne('customer.created', wooCustomer({ id: 801, email: 'grace@shop.example', firstName: 'Grace', lastName: 'Hopper' }));
    expect(created.status).toBe(200);
    expect((await server.api.get('/api/v1/members/801')).body).toMatchObject({ externalId: '801', email: 'grace@shop.example', name: 'Grace Hopper', points: 0 });
    await store.deliverOne('customer.updated', wooCustomer({ id: 801, email: 'grace.h@shop.example', firstName: 'Grace', lastName: 'Murray Hopper' }));
    expect((await server.api.get('/api/v1/members/801')).body).toMatchObject({ email: 'grace.h@shop.example', name: 'Grace Murray Hopper' });
    await send({ id: 8001, status: 'completed', customerId: 801, email: 'other@shop.example', modified: '2026-01-15T12:00:01' });
    expect(await balance('801')).toBe(80);
  });

  it('with memberIdentifier email, the member\'s externalId is the email, and stays the same member after an email change', async () => {
    await settings({ ...DEFAULTS, memberIdentifier: 'email' });
    await store.deliverOne('customer.created', wooCustomer({ id: 802, email: 'Linus@Shop.example', firstName: 'Linus', lastName: 'T' }));
    expect((await server.api.get('/api/v1/members/linus%40shop.example')).body).toMatchObject({ email: 'linus@shop.example', name: 'Linus T' });
    await store.deliverOne('customer.updated', wooCustomer({ id: 802, email: 'linus.t@shop.example', firstName: 'Linus', lastName: 'T' }));
    await send({ id: 8002, status: 'completed', customerId: 802, email: 'linus.t@shop.example', modified: '2026-01-15T12:00:01' });
    expect(await balance('linus@shop.example')).toBe(80);
    expect((await server.api.get('/api/v1/members/linus%40shop.example')).body.email).toBe('linus.t@shop.example');
  });
});

describe('deliveries: signature, ping, topics', () => {
  it('answers 401 for a bad or missing signature and 200 for the unsigned ping; a signed delivery for an unknown store is 404', async () => {
    const payload = wooOrder({ id: 9901, status: 'completed', customerId: 901, modified: '2026-01-15T12:00:01' });
    const tampered = await store.deliverOne('order.updated', payload, { tamper: (body) => body.replace('"total":"99.00"', '"total":"990.00"') });
    expect(tampered.status).toBe(401);
    expect(tampered.body).toEqual({ error: 'Unauthorized', message: expect.stringContaining('X-WC-Webhook-Signature') });
    const wrong = await store.deliverOne('order.updated', payload, { signature: FakeWooCommerce.sign(JSON.stringify(payload), 'not-the-secret') });
    expect(wrong.status).toBe(401);
    const path = `/api/commerce/webhooks/${storeId}`;
    const unsigned = await request(server.url, 'POST', path, { raw: JSON.stringify(payload), headers: { 'content-type': 'application/json', 'x-wc-webhook-topic': 'order.updated' } });
    expect(unsigned.status).toBe(401);
    expect(await balance('901')).toBeNull();

    const ping = await request(server.url, 'POST', path, { raw: 'webhook_id=123', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(ping.status).toBe(200);
    expect(ping.body).toEqual({ received: true, outcome: 'ping' });

    const body = JSON.stringify(payload);
    const unknown = await request(server.url, 'POST', '/api/commerce/webhooks/store_nope', {
      raw: body, headers: { 'content-type': 'application/json', 'x-wc-webhook-topic': 'order.updated', 'x-wc-webhook-signature': FakeWooCommerce.sign(body, 'x') },
    });
    expect(unknown.status).toBe(404);
  });

  it('answers a topic it does not handle with 200 and does nothing; a malformed order is a 400', async () => {
    const secret = [...store.webhooks.values()][0]!.secret;
    const post = (topic: string, body: string) => request(server.url, 'POST', `/api/commerce/webhooks/${storeId}`, {
      raw: body, headers: { 'content-type': 'application/json', 'x-wc-webhook-topic': topic, 'x-wc-webhook-signature': FakeWooCommerce.sign(body, secret) },
    });
    expect((await post('product.updated', '{"id":1}')).body).toEqual({ received: true, outcome: 'ignored topic product.updated' });
    const bad = await post('order.updated', JSON.stringify({ id: 1, status: 'completed', total: 'lots' }));
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/"total" must be an amount/);
    expect((await post('order.updated', '{"id":')).status).toBe(400);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });
});
