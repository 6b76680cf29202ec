import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/db/store.ts';
import { overview } from '../src/domain/analytics/overview.ts';
import { checkFigures, rebuildFigures } from '../src/domain/analytics/recount.ts';
import { applyOrder } from '../src/domain/commerce/orders.ts';
import { orderPayload } from '../src/domain/commerce/payloads.ts';
import { disconnectStore, liveStore, saveConnection, storeSettings } from '../src/domain/commerce/stores.ts';
import { createProject } from '../src/domain/project/projects.ts';
import { DAY_MS } from '../src/shared/clock.ts';
import { wooOrder, type OrderSpec } from './helpers/fake-woocommerce.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

// Store orders in the Overview: members' revenue and repeat purchases against guests', from what
// the store's deliveries say (every order recorded with its total), as orders are paid, refunded
// and cancelled, on the day each was first received.

const dir = mkdtempSync(join(tmpdir(), 'punchcard-commerce-figures-'));
let store: Store;
let projectId: string;
let now = new Date('2026-05-01T09:00:00.000Z');

beforeAll(async () => {
  store = await openStore({ path: join(dir, 'commerce.db'), masterKey: TEST_MASTER_KEY, synchronous: 'NORMAL' });
  projectId = createProject(store.db, store.box, { name: 'Shop' }, now).project.id;
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const connect = () => saveConnection(store.db, store.box, projectId, {
  storeId: 'store_figures', siteUrl: 'https://shop.example', organizationId: 'org_1', consumerKey: 'ck_x', consumerSecret: 'cs_x',
  webhookSecret: 'whsec_x', webhooks: [],
}, now);

let version = 0;
/** A delivery of the order as it stands; each a later modification than the one before, unless `stale`. */
function deliver(spec: Omit<OrderSpec, 'modified'>, stale = false) {
  const row = liveStore(store.db, projectId)!;
  const modified = new Date(Date.UTC(2026, 0, 1) + (stale ? 0 : ++version * 1000)).toISOString().slice(0, 19);
  return applyOrder(store.db, row, storeSettings(row), v.parse(orderPayload, wooOrder({ ...spec, modified })), now);
}
const commerce = (range: 7 | 30 = 7) => overview(store.db, projectId, range, now).commerce;
const inStep = () => expect(checkFigures(store.db, projectId)).toEqual({ problems: [], memberDays: 0 });

describe("the Overview's store figures", () => {
  it('are null without a connected store', () => {
    expect(commerce()).toBeNull();
  });

  it('compare members with guests: paid orders, revenue less refunds, and repeat purchases within the range', () => {
    connect();
    // Ten days before the others: in the 30-day range, not in the 7-day one.
    deliver({ id: 1, status: 'completed', customerId: 101 });
    now = new Date(now.getTime() + 10 * DAY_MS);
    deliver({ id: 2, status: 'processing', customerId: 101 }); // paid: counts
    deliver({ id: 3, status: 'completed', customerId: 0, email: 'Guest.One@example.com' });
    deliver({ id: 4, status: 'pending', customerId: 102 }); // not paid yet
    now = new Date(now.getTime() + DAY_MS);
    deliver({ id: 5, status: 'completed', customerId: 0, email: 'guest.one@example.com' }); // the same guest again
    deliver({ id: 6, status: 'completed', customerId: 0, email: 'guest.two@example.com' });
    deliver({ id: 7, status: 'completed', customerId: 0, email: '' }); // a guest no one can tell apart: revenue, not a shopper
    deliver({ id: 2, status: 'completed', customerId: 101, refunds: [{ id: 90, amount: '19.80' }] });
    inStep();
    // Each order is 99.00. Members: orders 2 (79.20 after its refund) in 7 days; 101 ordered once in them (order 1 is older).
    expect(commerce()).toEqual({
      memberRevenue: 79.2, nonMemberRevenue: 396, memberOrders: 1, nonMemberOrders: 4, memberRepeatRate: 0, nonMemberRepeatRate: 0.5, currency: 'EUR',
    });
    expect(commerce(30)).toMatchObject({ memberRevenue: 178.2, memberOrders: 2, memberRepeatRate: 1 });

    deliver({ id: 4, status: 'completed', customerId: 102 }); // paid now: counts on the day it was first received
    deliver({ id: 5, status: 'cancelled', customerId: 0, email: 'guest.one@example.com' }); // guest one is back to one order
    inStep();
    expect(commerce()).toEqual({
      memberRevenue: 178.2, nonMemberRevenue: 297, memberOrders: 2, nonMemberOrders: 3, memberRepeatRate: 0, nonMemberRepeatRate: 0, currency: 'EUR',
    });
    deliver({ id: 5, status: 'cancelled', customerId: 0, email: 'guest.one@example.com' }); // a repeat changes nothing
    expect(deliver({ id: 2, status: 'cancelled', customerId: 101 }, true)).toBe('stale'); // an older state arriving late is ignored
    inStep();
    expect(commerce()?.memberRevenue).toBe(178.2);
  });

  it('keep no guest email, only a hash that tells repeat guests apart', () => {
    const shoppers = store.db.prepare("SELECT DISTINCT shopper FROM commerce_orders WHERE shopper LIKE 'g%'").pluck().all() as string[];
    expect(shoppers).toHaveLength(2);
    for (const shopper of shoppers) expect(shopper).toMatch(/^g[0-9a-f]{32}$/);
    expect(JSON.stringify(store.db.prepare('SELECT * FROM commerce_orders').all())).not.toMatch(/guest\.one|guest\.two/i);
  });

  it('are recounted by a rebuild, and counted from the next delivery for orders received before totals were recorded', () => {
    // As 0034 finds an order received before it: no total, no shopper, not counted.
    store.db.prepare('UPDATE commerce_orders SET total_cents = NULL, currency = NULL, shopper = NULL, revenue_cents = NULL WHERE order_id = 6').run();
    rebuildFigures(store.db, projectId);
    inStep();
    expect(commerce()).toMatchObject({ nonMemberOrders: 2, nonMemberRevenue: 198 });
    deliver({ id: 6, status: 'completed', customerId: 0, email: 'guest.two@example.com' });
    inStep();
    expect(commerce()).toMatchObject({ nonMemberOrders: 3, nonMemberRevenue: 297 });
  });

  it('are null again once the store is disconnected (its orders stay counted for a reconnection)', () => {
    disconnectStore(store.db, projectId, 'store_figures', now);
    expect(commerce()).toBeNull();
    connect();
    expect(commerce()).toMatchObject({ memberOrders: 2, nonMemberOrders: 3 });
  });
});
