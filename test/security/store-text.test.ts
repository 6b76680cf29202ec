// Text from a store reaches no terminal raw (issue 47): a store's emails, names, order numbers and
// statuses are checked like a client's, and the CLI escapes control characters in what it prints,
// whatever their source (here, rows written straight into the database).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/shared/log.ts';
import { punchcard } from '../helpers/cli.ts';
import { connectFakeStore, wooCustomer, wooOrder, type FakeWooCommerce } from '../helpers/fake-woocommerce.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let server: TestServer;
let store: FakeWooCommerce;

beforeAll(async () => {
  server = await startTestServer();
  ({ store } = await connectFakeStore(server));
});
afterAll(async () => {
  await server.stop();
  await store.stop();
});

/** What a terminal must never receive: C0 controls but the line break, DEL, C1 (CSI, OSC) and bidi controls. */
const RAW_CONTROLS = /[^\P{Cc}\n]|[\u202A-\u202E\u2066-\u2069]/u;

describe("a store's text is checked like a client's", () => {
  it('an email with ESC or BEL is no email, and a name keeps only its readable characters', async () => {
    const res = await store.deliverOne('customer.created', wooCustomer({ id: 901, email: 'ada\u001b[2J@shop.example', firstName: 'Ada\u0007\u202E', lastName: 'Lovelace\u009b' }));
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const member = (await server.api.get('/api/v1/members/901')).body;
    expect(member).toMatchObject({ email: null, name: 'Ada Lovelace' });
    await store.deliverOne('customer.updated', wooCustomer({ id: 901, email: 'ada@shop.example\u0007', firstName: 'Ada', lastName: 'Lovelace' }));
    expect((await server.api.get('/api/v1/members/901')).body.email).toBeNull();
  });

  it('an order number or status with control characters is refused (400 naming the field), and nothing of the order is kept', async () => {
    for (const [field, order] of [
      ['number', { ...wooOrder({ id: 9101, status: 'completed', customerId: 902, modified: '2026-01-15T12:00:01' }), number: '12\u001b]0;owned\u0007' }],
      ['status', wooOrder({ id: 9102, status: 'completed\u001b[8m', customerId: 902, modified: '2026-01-15T12:00:01' })],
      ['date_modified_gmt', wooOrder({ id: 9103, status: 'completed', customerId: 902, modified: '2026-01-15\u001b12:00:01' })],
    ] as const) {
      const res = await store.deliverOne('order.updated', order);
      expect(res.status, field).toBe(400);
      expect(res.body.message, field).toContain(field);
    }
    expect(server.ctx.db.prepare('SELECT count(*) FROM commerce_orders WHERE order_id > 9100').pluck().get()).toBe(0);
  });
});

describe('the CLI prints no control character raw, whatever its source', () => {
  it('members list and show, and claims list, escape them in tables, summaries and JSON', async () => {
    expect((await server.api.post('/api/v1/members', { externalId: 'mallory', email: 'mallory@shop.example' })).status).toBe(201);
    expect((await server.api.post('/api/v1/members/mallory/points', { amount: 100 })).status).toBe(200);
    const reward = await server.api.post('/api/v1/rewards', { name: 'Thanks', type: 'CUSTOM', pointsCost: 10 });
    const claim = await server.api.post(`/api/v1/rewards/${reward.body.id}/redeem`, { externalId: 'mallory' });
    expect(claim.status, claim.text).toBe(200);
    // Rows as an old version, a bug or a store could have left them.
    const { db } = server.ctx;
    db.prepare("UPDATE members SET name = ?, email = ? WHERE external_id = 'mallory'").run('Mal\u001b]0;owned\u0007lory\u202E', 'mal\u009b2J@shop.example');
    db.prepare('UPDATE reward_claims SET coupon_code = ? WHERE public_id = ?').run('CODE\u001b[2J\u007f', claim.body.claim.id);
    const project = ['--db', server.dbPath, '--project', server.projectId];
    const printed: Record<string, string> = {};
    for (const args of [['members', 'list'], ['members', 'show', 'mallory'], ['claims', 'list'], ['members', 'list', '--json'], ['claims', 'list', '--json']]) {
      const run = punchcard([...args, ...project]);
      expect(run.status, `${args.join(' ')}: ${run.stderr}`).toBe(0);
      expect(run.stdout, args.join(' ')).not.toMatch(RAW_CONTROLS);
      expect(run.stdout, args.join(' ')).toContain('\\u001b');
      printed[args.join(' ')] = run.stdout;
    }
    expect(printed['members list']).toContain('Mal\\u001b]0;owned\\u0007lory\\u202e');
    expect(printed['members list']).toContain('mal\\u009b2J@shop.example');
    expect(printed['claims list']).toContain('CODE\\u001b[2J\\u007f');
    // The JSON stays the same JSON.
    const json = JSON.parse(printed['members list --json']!);
    expect(json.members.find((m: { externalId: string }) => m.externalId === 'mallory').name).toBe('Mal\u001b]0;owned\u0007lory\u202E');
  });
});

describe("the server's text log", () => {
  it('escapes the control characters a message carries, keeping its line breaks', () => {
    const written: string[] = [];
    const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      createLogger('info').warn('commerce: the store said \u001b]0;owned\u0007 and \u009b2J\nsecond line');
    } finally {
      spy.mockRestore();
    }
    expect(written).toHaveLength(1);
    expect(written[0]).toMatch(/ WARN commerce: the store said \\u001b\]0;owned\\u0007 and \\u009b2J\nsecond line\n$/);
  });
});
