import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeWooCommerce, wooCustomer, wooOrder, type FakeWooCommerce, type OrderSpec } from './helpers/fake-woocommerce.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

let server: TestServer;
let store: FakeWooCommerce;

beforeAll(async () => {
  server = await startTestServer();
  store = await startFakeWooCommerce();
  const connected = await server.api.post('/api/commerce/connect', {
    siteUrl: store.url, consumerKey: store.consumerKey, consumerSecret: store.consumerSecret, organizationId: 'org_1',
  });
  expect(connected.status, connected.text).toBe(201);
});
afterAll(async () => {
  await server.stop();
  await store.stop();
});

const points = async (externalId: string) => (await server.api.get(`/api/v1/members/${externalId}`)).body.points as number;
const stats = async (externalId: string) => (await server.api.get(`/api/v1/referrals/stats/${externalId}`)).body.stats;
async function send(spec: OrderSpec) {
  expect((await store.deliverOne('order.updated', wooOrder(spec))).status).toBe(200);
}

describe('referral conversion on the referee\'s first order', () => {
  it('converts when the first order earns, pays the referrer once, and never again for later orders', async () => {
    expect((await server.api.patch('/api/v1/project', { referral: { conversion: 'FIRST_ORDER', referrerReward: 100, refereeReward: 50 } })).status).toBe(200);
    await server.api.post('/api/v1/members', { externalId: 'rosa' });
    const code = (await server.api.get('/api/v1/referrals/stats/rosa')).body.referralCode as string;
    // The referee signs up in the store, then applies the code.
    expect((await store.deliverOne('customer.created', wooCustomer({ id: 900, email: 'newbie@shop.example', firstName: 'New', lastName: 'Bie' }))).status).toBe(200);
    expect((await server.api.post('/api/v1/referrals/apply', { externalId: '900', referralCode: code })).status).toBe(200);
    expect(await stats('rosa')).toMatchObject({ pendingReferrals: 1, convertedReferrals: 0 });

    await send({ id: 1, status: 'processing', customerId: 900, modified: '2026-01-15T12:00:01' });
    expect(await stats('rosa')).toMatchObject({ pendingReferrals: 1, convertedReferrals: 0 }); // not earned yet
    await send({ id: 1, status: 'completed', customerId: 900, modified: '2026-01-15T12:00:02' });
    expect(await stats('rosa')).toMatchObject({ pendingReferrals: 0, convertedReferrals: 1, totalPointsEarned: 100 });
    expect(await points('rosa')).toBe(100);
    expect(await points('900')).toBe(50 + 80);

    await send({ id: 1, status: 'cancelled', customerId: 900, modified: '2026-01-15T12:00:03' });
    await send({ id: 1, status: 'completed', customerId: 900, modified: '2026-01-15T12:00:04' });
    await send({ id: 2, status: 'completed', customerId: 900, modified: '2026-01-15T12:00:05' });
    expect(await points('rosa')).toBe(100);
    expect(await stats('rosa')).toMatchObject({ convertedReferrals: 1, totalPointsEarned: 100 });
  });
});
