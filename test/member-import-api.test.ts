import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { releaseDuePendingPoints } from '../src/domain/ledger/pending.ts';
import { DAY_MS } from '../src/shared/clock.ts';
import { client } from './helpers/http.ts';
import { type FakeWooCommerce, startFakeWooCommerce, wooCustomer, wooOrder } from './helpers/fake-woocommerce.ts';
import { startTestServer, tableCounts, TestClock, type TestServer } from './helpers/server.ts';
import { widgetHeader } from './helpers/widget.ts';

// POST /api/v1/members/import (issue 50, item 7) and what imported members become: pending points
// released on time, tiers kept, email-only members taken over by the store's customer and by a
// signed widget sign-in, through the real HTTP surface and SQLite file.

let server: TestServer;
const clock = new TestClock(new Date('2026-05-01T09:00:00.000Z'));

beforeAll(async () => {
  server = await startTestServer({ clock });
  for (const [key, level, name, min] of [['silver', 1, 'Silver', 500], ['gold', 2, 'Gold', 2000]] as const) {
    expect((await server.api.post('/api/v1/levels', { key, level, name, minTotalPointsEarned: min })).status).toBe(201);
  }
});
afterAll(() => server.stop());

const importBatch = (body: Record<string, unknown>, headers: Record<string, string> = {}) => server.api.post('/api/v1/members/import', body, { headers });
const member = async (externalId: string) => (await server.api.get(`/api/v1/members/${encodeURIComponent(externalId)}`)).body;
const points = async (externalId: string) => (await server.api.get(`/api/v1/members/${encodeURIComponent(externalId)}/points?history=true&limit=100`)).body;

describe('POST /members/import', () => {
  it('imports each row through the one importer and answers a report per row', async () => {
    // A subscriber to member.created, so the outbox records what the import emits.
    server.ctx.db.prepare(`INSERT INTO webhooks (id, project_id, url, events, secret, created_at, updated_at)
      VALUES ('whk_test', ?, 'https://hooks.example/in', '["member.created"]', 'x', ?, ?)`).run(server.projectId, clock.now().toISOString(), clock.now().toISOString());
    const res = await importBatch({
      batchId: 'b-1', source: 'loyaltylion', rows: [
        { externalId: 'ann', email: 'ann@example.com', name: 'Ann', balance: 600, level: 'gold', joinedAt: '2024-05-01' },
        { email: 'Bob@Example.com', balance: 40, pending: 25 },
        { externalId: 'cy', balance: 0, referralCode: 'cy-friends' },
        { externalId: 'ann', balance: 5 },
        { externalId: 'dee', balance: 10, pointsExpireAt: '2026-04-01' },
      ],
    });
    expect(res.status, res.text).toBe(200);
    expect(res.body.summary).toEqual({ created: 3, updated: 0, unchanged: 0, skipped: 2, pointsImported: 640, pendingImported: 25 });
    expect(res.body.rows.map((row: { outcome: string }) => row.outcome)).toEqual(['new', 'new', 'new', 'error', 'error']);
    expect(res.body.rows[1]).toMatchObject({ index: 1, externalId: 'bob@example.com', points: 40, pending: 25, balance: 40, warnings: [] });
    expect(res.body.rows[3]).toEqual({ index: 3, outcome: 'error', error: 'externalId "ann" is already row 0', externalId: 'ann' });
    expect(res.body.rows[4].error).toBe('"pointsExpireAt" must be in the future (2026-04-01)');

    // One IMPORTED entry per opening balance, source import, actor the key, the source and batch in its description.
    const ann = await points('ann');
    expect(ann.transactions).toEqual([expect.objectContaining({ amount: 600, type: 'IMPORTED', source: 'import', actor: server.secretKey.slice(0, 12),
      description: 'Opening balance from LoyaltyLion (batch b-1, row 0)', referenceId: 'import:b-1' })]);
    // Gold is kept though 600 lifetime points reach only Silver; joinedAt is midnight in the project's zone (UTC here).
    expect(await member('ann')).toMatchObject({ points: 600, totalPointsEarned: 600, level: 2, levelName: 'Gold', createdAt: '2024-05-01T00:00:00.000Z' });
    // … and member.created tells webhook receivers the same date.
    const created = server.ctx.db.prepare(`SELECT data FROM events WHERE type = 'member.created' AND json_extract(data, '$.externalId') = 'ann'`).pluck().get() as string;
    expect(JSON.parse(created).member).toMatchObject({ createdAt: '2024-05-01T00:00:00.000Z' });
    expect(await points('bob@example.com')).toMatchObject({ points: 40, pendingPoints: 25 });
    expect((await server.api.get('/api/v1/referrals/stats/cy')).body.referralCode).toBe('CY-FRIENDS');
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('is idempotent on batchId: the same batch replays its answer, another body under it is refused', async () => {
    const body = { batchId: 'b-2', rows: [{ externalId: 'eve', balance: 70 }] };
    const first = await importBatch(body);
    const again = await importBatch(body);
    expect(again.status).toBe(200);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await importBatch({ ...body, rows: [{ externalId: 'eve', balance: 700 }] })).status).toBe(409);
    expect((await member('eve')).points).toBe(70);
  });

  it('imports a row once per import key, whatever the batch: a migration re-sent in new batches adds nothing twice', async () => {
    const rows = [{ externalId: 'fay', balance: 300 }, { externalId: 'gus', balance: 20 }];
    const first = await importBatch({ batchId: 'm-1', importKey: 'migration', rows });
    expect(first.body.summary).toMatchObject({ created: 2, pointsImported: 320 });
    const resent = await importBatch({ batchId: 'm-2', importKey: 'migration', rows: [...rows, { externalId: 'hal', balance: 1 }].map((row) => ({ ...row, balance: row.balance * 2 })) });
    expect(resent.body.summary).toMatchObject({ created: 1, unchanged: 2, pointsImported: 2 });
    expect(resent.body.rows[0].warnings).toEqual(['already has 300 points from this import; the 600 this row says were not added again']);
    expect((await member('fay')).points).toBe(300);
  });

  it('reset sets the balance by one entry of the difference, and repeating it changes nothing', async () => {
    expect((await server.api.post('/api/v1/members/fay/points', { amount: -100 })).status).toBe(200);
    const reset = await importBatch({ batchId: 'r-1', mode: 'reset', rows: [{ externalId: 'fay', balance: 50 }] });
    expect(reset.body.rows[0]).toMatchObject({ outcome: 'updated', points: -150, balance: 50 });
    expect((await points('fay')).transactions[0]).toMatchObject({ amount: -150, type: 'IMPORTED', description: 'Balance set to 50 from the API (batch r-1, row 0)' });
    const repeat = await importBatch({ batchId: 'r-2', mode: 'reset', rows: [{ externalId: 'fay', balance: 50 }] });
    expect(repeat.body.rows[0]).toMatchObject({ outcome: 'unchanged', points: 0, balance: 50 });
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('releases pending points when their days are up, as an IMPORTED entry; available at once with pendingAsAvailable', async () => {
    await importBatch({ batchId: 'p-1', pendingDays: 10, rows: [{ externalId: 'ivy', balance: 100, pending: 40 }] });
    await importBatch({ batchId: 'p-2', pendingAsAvailable: true, rows: [{ externalId: 'jo', balance: 100, pending: 40 }] });
    expect(await points('jo')).toMatchObject({ points: 140, pendingPoints: 0 });
    expect(await points('ivy')).toMatchObject({ points: 100, pendingPoints: 40 });
    clock.advance(9 * DAY_MS);
    expect(await releaseDuePendingPoints(server.ctx.db, server.ctx.write, clock.now())).toEqual({ members: 0, points: 0 });
    clock.advance(2 * DAY_MS);
    // Bob's 25 (30 days) are not due yet; Ivy's 40 are.
    expect(await releaseDuePendingPoints(server.ctx.db, server.ctx.write, clock.now())).toEqual({ members: 1, points: 40 });
    const ivy = await points('ivy');
    expect(ivy).toMatchObject({ points: 140, totalPointsEarned: 140, pendingPoints: 0 });
    expect(ivy.transactions[0]).toMatchObject({ amount: 40, type: 'IMPORTED', actor: 'system', description: 'Pending points from the API (batch p-1, row 0)' });
    expect(await releaseDuePendingPoints(server.ctx.db, server.ctx.write, clock.now())).toEqual({ members: 0, points: 0 });
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('refuses bodies that are not a batch, whole, and takes 1,000 rows in a body over 64 KiB', async () => {
    const before = tableCounts(server);
    for (const body of [{ rows: [{ externalId: 'x', balance: 1 }] }, { batchId: 'v', rows: [] }, { batchId: 'v', rows: [{ balance: 5 }] },
      { batchId: 'v', rows: [{ externalId: 'x', balance: -1 }] }, { batchId: 'v', rows: [{ externalId: 'x', balance: 1.5 }] },
      { batchId: 'v', mode: 'replace', rows: [{ externalId: 'x' }] }, { batchId: 'v', rows: Array.from({ length: 1001 }, (_, i) => ({ externalId: `x${i}` })) }]) {
      const res = await importBatch(body);
      expect(res.status, JSON.stringify(body).slice(0, 100)).toBe(400);
    }
    expect(tableCounts(server)).toEqual(before);
    const rows = Array.from({ length: 1000 }, (_, i) => ({ externalId: `bulk-${i}`, email: `bulk.shopper.${i}@example.com`, name: `Bulk Shopper Number ${i}`, balance: i }));
    expect(JSON.stringify({ batchId: 'big', rows }).length).toBeGreaterThan(64 * 1024);
    const big = await importBatch({ batchId: 'big', rows });
    expect(big.status, big.text.slice(0, 200)).toBe(200);
    expect(big.body.summary).toMatchObject({ created: 1000, pointsImported: 499_500 });
  });
});

describe('members imported by email alone meet the shop\'s own id for them', () => {
  let store: FakeWooCommerce;
  beforeAll(async () => {
    store = await startFakeWooCommerce();
    const connected = await server.api.post('/api/commerce/connect', {
      siteUrl: store.url, consumerKey: store.consumerKey, consumerSecret: store.consumerSecret, organizationId: server.projectId,
    });
    expect(connected.status, connected.text).toBe(201);
  });
  afterAll(() => store.stop());

  it('a WooCommerce customer with that email takes the imported member over: one member, keyed by the customer id', async () => {
    await importBatch({ batchId: 'woo', source: 'smile', rows: [{ email: 'kim@example.com', balance: 250 }] });
    const delivered = await store.deliverOne('customer.created', wooCustomer({ id: 77, email: 'KIM@example.com', firstName: 'Kim', lastName: 'Lee' }));
    expect(delivered.status).toBe(200);
    expect((await server.api.get('/api/v1/members/kim%40example.com')).status).toBe(404);
    expect(await member('77')).toMatchObject({ externalId: '77', email: 'kim@example.com', name: 'Kim Lee', points: 250 });
    expect((await server.api.get('/api/v1/members?search=kim')).body.members).toHaveLength(1);
    // Its orders earn on the same member.
    await store.deliverOne('order.updated', wooOrder({ id: 9100, status: 'completed', customerId: 77, modified: '2026-05-01T10:00:00' }));
    expect((await member('77')).points).toBe(250 + 80);
    // Importing the same file again finds the member by email: nothing twice, no second member.
    const again = await importBatch({ batchId: 'woo', source: 'smile', rows: [{ email: 'kim@example.com', balance: 250 }] });
    expect(again.body).toMatchObject({ rows: [{ outcome: 'new' }] }); // the batch's first answer, replayed
    const rerun = await importBatch({ batchId: 'woo-again', importKey: 'woo', source: 'smile', rows: [{ email: 'kim@example.com', balance: 250 }] });
    expect(rerun.body.rows[0]).toMatchObject({ outcome: 'unchanged', externalId: '77', points: 0 });
  });

  it('a widget sign-in whose email the shop signed takes it over; an unsigned email does not', async () => {
    await importBatch({ batchId: 'widget', rows: [{ email: 'lou@example.com', balance: 90 }, { email: 'max@example.com', balance: 15 }] });
    const signer = { publicKey: server.publishableKey, widgetSecret: server.widgetSecret };
    const init = (externalId: string, extra: Parameters<typeof widgetHeader>[3]) =>
      client(server.url).post('/api/widget/init', {}, { headers: { 'x-widget-auth': widgetHeader(signer, externalId, clock.now().getTime(), extra) } });
    const signed = await init('user-5', { member: { email: 'lou@example.com', name: 'Lou' } });
    expect(signed.status, signed.text).toBe(200);
    expect(signed.body.member).toMatchObject({ externalId: 'user-5', email: 'lou@example.com', name: 'Lou', points: 90 });
    expect(signed.body.welcomeBonus).toBe(0);
    const unsigned = await init('user-6', { unsignedMember: { email: 'max@example.com' } });
    expect(unsigned.body.member).toMatchObject({ externalId: 'user-6', points: 0 });
    expect(await member('max@example.com')).toMatchObject({ points: 15 });
  });
});
