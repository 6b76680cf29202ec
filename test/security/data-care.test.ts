// Data care, second pass. Erasure reaches every copy and every link to other systems' accounts,
// down to the file's freed bytes. And a database file holds exactly the schema the migrations
// make, or nothing runs on it: a backup carrying an added trigger was restored ("integrity ok;
// schema up to date; ledger consistent") and its trigger then ran inside serve, where it planted
// a secret key and copied every awarded member's email.
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/connection.ts';
import { migrate, migrationsFromDir } from '../../src/db/migrations.ts';
import { SCHEMA_FILE, schemaDifferences, schemaFile } from '../../src/db/schema-check.ts';
import { linkCommunityAccount } from '../../src/domain/community/links.ts';
import { EVENT_TYPES } from '../../src/domain/events/record-event.ts';
import { checkLedger } from '../../src/domain/ledger/audit.ts';
import { buildVersion1Database } from '../helpers/fixture-0001.ts';
import { punchcard, punchcardJson, spawnServer } from '../helpers/cli.ts';
import { configureCommunity, sendCommunityEvent } from '../helpers/community.ts';
import { startFakeWooCommerce, wooCustomer, wooOrder } from '../helpers/fake-woocommerce.ts';
import { startTestServer, TestClock } from '../helpers/server.ts';

let dir: string;
let db: string;
let projectId: string;
let backup: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-data-care-'));
  db = join(dir, 'shop.db');
  projectId = punchcardJson(['--db', db, 'projects', 'create', '--name', 'Shop']).project.id;
  backup = join(dir, 'backup.db');
  expect(punchcard(['--db', db, 'backup', backup]).status).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The attack: a table to copy into, and a trigger that copies every awarded member's email and plants a key. */
const PLANTED = `CREATE TABLE loot (email TEXT);
  CREATE TRIGGER steal AFTER INSERT ON transactions BEGIN
    INSERT INTO loot SELECT email FROM members WHERE id = new.member_id;
    INSERT INTO api_keys (id, project_id, type, key_hash, key_prefix, created_at)
      VALUES ('key_planted' || new.id, new.project_id, 'secret', hex(randomblob(32)), 'sk_live_plnt', new.created_at);
  END;`;

/** A copy of the backup changed by `sql`. */
function tampered(name: string, sql: string): string {
  const file = join(dir, name);
  copyFileSync(backup, file);
  const copy = new Database(file);
  copy.exec(sql);
  copy.close();
  return file;
}

const loot = (file: string) => {
  const copy = new Database(file, { readonly: true });
  try {
    return copy.prepare('SELECT count(*) FROM loot').pluck().get() as number;
  } finally {
    copy.close();
  }
};

describe('restore accepts only the schema the migrations make', { timeout: 60_000 }, () => {
  it('refuses a backup with an added trigger and table, naming both, and replaces nothing', () => {
    const file = tampered('planted.db', PLANTED);
    const target = join(dir, 'restored-planted.db');
    const refused = punchcard(['--db', target, 'restore', file]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('trigger "steal" (not made by any migration)');
    expect(refused.stderr).toContain('table "loot" (not made by any migration)');
    expect(refused.stderr).toContain('nothing was replaced');
    expect(existsSync(target)).toBe(false);
  });

  it('refuses an added view or index, a changed trigger and a dropped one', () => {
    const cases: [string, string, string][] = [
      ['view', 'CREATE VIEW everyone AS SELECT email FROM members;', 'view "everyone" (not made by any migration)'],
      ['index', 'CREATE INDEX members_by_name ON members(name);', 'index "members_by_name" (not made by any migration)'],
      ['changed trigger', `DROP TRIGGER transactions_append_only_delete;
        CREATE TRIGGER transactions_append_only_delete BEFORE DELETE ON transactions WHEN 0 BEGIN SELECT RAISE(ABORT, 'no'); END;`,
      'trigger "transactions_append_only_delete" (changed from what the migrations make)'],
      ['dropped trigger', 'DROP TRIGGER transactions_append_only_update;', 'trigger "transactions_append_only_update" (missing)'],
    ];
    for (const [label, sql, named] of cases) {
      const target = join(dir, `restored-${label.replace(' ', '-')}.db`);
      const refused = punchcard(['--db', target, 'restore', tampered(`${label.replace(' ', '-')}.db`, sql)]);
      expect(refused.status, label).toBe(1);
      expect(refused.stderr, label).toContain(named);
      expect(existsSync(target), label).toBe(false);
    }
  });

  it('restores an untouched backup as before', () => {
    const target = join(dir, 'restored-clean.db');
    const restored = punchcard(['--db', target, 'restore', backup]);
    expect(restored.status, restored.stderr).toBe(0);
    expect(restored.stdout).toContain('schema up to date');
  });

  it('checks against the schema the build wrote, which is the migrations\' applied in memory', () => {
    expect(readFileSync(join(import.meta.dirname, '../../', SCHEMA_FILE), 'utf8')).toBe(schemaFile(migrationsFromDir()));
  });

  it('finds nothing foreign in a database upgraded through every migration since version 1, nor in one at an older version', () => {
    const upgraded = openDatabase(join(dir, 'upgraded.db'));
    try {
      buildVersion1Database(upgraded);
      for (const upTo of [2, 9, 13, 19, 22]) migrate(upgraded, migrationsFromDir().filter((m) => m.version <= upTo));
      expect(schemaDifferences(upgraded, migrationsFromDir())).toEqual([]);
      migrate(upgraded, migrationsFromDir());
      expect(schemaDifferences(upgraded, migrationsFromDir())).toEqual([]);
    } finally {
      upgraded.close();
    }
  });
});

describe('serve and doctor on a file with a foreign schema', { timeout: 60_000 }, () => {
  it('serve refuses to start, naming the objects and the fix; nothing ran; doctor reports them; once dropped, both are content', () => {
    const file = tampered('served.db', PLANTED);
    const refused = punchcard(['--db', file, 'serve', '--port', '0', '--host', '127.0.0.1']);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('trigger "steal" (not made by any migration)');
    expect(refused.stderr).toContain('DROP TRIGGER "steal"; DROP TABLE "loot";');
    // No other command opens it either: an award would have fired the trigger.
    const award = punchcard(['--db', file, 'points', 'add', '--project', projectId, '--member', 'ada', '--amount', '5']);
    expect(award.status).toBe(1);
    expect(award.stderr).toContain('trigger "steal"');
    expect(punchcard(['--db', file, 'migrate']).status).toBe(1);
    expect(loot(file)).toBe(0);

    const doctor = punchcard(['--db', file, 'doctor']);
    expect(doctor.status).toBe(1);
    expect(doctor.stdout).toContain('Schema: NOT the migrations\' (the server refuses to start on it): table "loot" (not made by any migration), trigger "steal"');
    const json = JSON.parse(punchcard(['--db', file, 'doctor', '--json']).stdout);
    expect(json).toMatchObject({ healthy: false, schema: [
      { type: 'table', name: 'loot', problem: 'foreign' }, { type: 'trigger', name: 'steal', problem: 'foreign' },
    ] });

    const fix = new Database(file);
    fix.exec('DROP TRIGGER "steal"; DROP TABLE "loot";');
    fix.close();
    const healthy = punchcard(['--db', file, 'doctor']);
    expect(healthy.status, healthy.stdout).toBe(0);
    expect(healthy.stdout).toContain('Schema: as the migrations make it.');
  });

  it('doctor reports a trigger added to a live file under a running server', async () => {
    const live = join(dir, 'live.db');
    copyFileSync(backup, live);
    const server = await spawnServer(live);
    try {
      const other = new Database(live);
      other.exec('CREATE TRIGGER spy AFTER UPDATE ON members BEGIN SELECT 1; END;');
      other.close();
      const doctor = punchcard(['--db', live, 'doctor', '--json']);
      expect(doctor.status).toBe(1);
      expect(JSON.parse(doctor.stdout).schema).toEqual([{ type: 'trigger', name: 'spy', problem: 'foreign' }]);
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
    }
  });
});

/**
 * What erasure does to each table. Every table of the schema is listed (checked against
 * sqlite_master below): a new table fails the test until someone says what erasure does to it.
 */
const ERASURE: Record<string, string> = {
  members: 'profile and externalId erased; the row stays, anonymised, for the ledger',
  transactions: 'description, metadata and reference cleared; amounts and balances stay',
  point_lots: 'amounts and expiry only',
  events: 'personal values in payloads nulled or redacted',
  webhook_deliveries: 'last errors redacted',
  webhooks: 'last errors redacted',
  idempotency_keys: 'stored answers redacted',
  quest_progress: 'metadata cleared',
  member_badges: 'which badge and when only',
  reward_claims: 'coupon codes cleared (the store ties a code to the email)',
  promo_redemptions: 'which code and points only',
  referral_codes: 'a random code, kept so it is never issued again; an erased member\'s code refers nobody',
  referrals: 'who referred whom among members, and points',
  game_plays: 'plays and prizes only',
  social_shares: 'platform, type and points only',
  commerce_customers: 'deleted: the store customer is unlinked',
  commerce_orders: 'unlinked from the member (kept for their points), marked excluded',
  commerce_order_refunds: 'amounts of orders, which are unlinked',
  commerce_coupons: 'deleted: the job stops, the email and codes go',
  community_links: 'deleted',
  community_events: 'deleted: the account\'s log rows',
  community_once: 'deleted: the account\'s one-time awards',
  members_search: 'an erased member leaves the search index',
  members_search_progress: 'the highest member id indexed',
  projects: 'no member data', api_keys: 'no member data', meta: 'no member data', schema_migrations: 'no member data',
  quests: 'catalog', rewards: 'catalog', badges: 'catalog', games: 'catalog', promo_codes: 'catalog', multipliers: 'catalog', levels: 'catalog',
  commerce_stores: 'store connection', community_settings: 'community configuration', leaderboard_writes: 'a counter',
  community_link_nonces: 'used linking nonces: random values, no member',
  audit_log: 'entries that named the member name their public id; their own entries lose free text',
  operators: 'the admin\'s operators, not members', operator_roles: 'operators\' roles', operator_invites: 'operators\' invites',
  operator_sessions: 'operators\' sessions', operator_devices: 'operators\' sign-in devices',
  pending_points: 'deleted: imported points not yet available', imported_email_members: 'deleted: no one takes an erased member over',
  member_imports: 'which files were imported: names and counts, no member',
  daily_figures: 'counts per day, reward, quest and earning source: no member',
  daily_order_figures: 'order counts and revenue per day and segment: no member (an order\'s shopper key is the anonymised member row, or a guest email\'s one-way hash)',
};

describe('erasure reaches every copy and every link', { timeout: 60_000 }, () => {
  it('leaves no personal value or outside account linked to the member in any table, nor in the file\'s freed bytes', async () => {
    const clock = new TestClock(new Date('2026-03-02T10:00:00.000Z'));
    const server = await startTestServer({ clock, webhooks: { runner: false } });
    const store = await startFakeWooCommerce();
    try {
      const { api, ctx } = server;
      const db = ctx.db;
      const EMAIL = 'erasable.person@example.org';
      const NAME = 'Erasable Person';
      const PHONE = '+1 555 0142';
      const DISCORD = '777000111222333444';
      const DISCORD_NAME = 'erasable_gamer';
      const CUSTOMER = 731946285;
      const ORDER = 86753091;
      const path = `/api/v1/members/${encodeURIComponent(EMAIL)}`;
      expect((await api.post('/api/v1/webhooks', { url: 'https://hooks.example/in', events: [...EVENT_TYPES] })).status).toBe(201);

      // The member, with copies: an idempotent answer, a ledger entry's text and reference, quest metadata.
      expect((await api.post('/api/v1/members', { externalId: EMAIL, email: EMAIL, name: NAME, phone: PHONE }, { headers: { 'idempotency-key': 'make-erasable' } })).status).toBe(201);
      expect((await api.post(`${path}/points`, { amount: 500, description: `welcome ${NAME}`, referenceId: `crm-${EMAIL}` })).status).toBe(200);
      expect((await api.post('/api/v1/quests', { name: 'Review', completionMode: 'AUTOMATED', action: 'review', points: 5 })).status).toBe(201);
      expect((await api.post('/api/v1/events', { externalId: EMAIL, event: 'review', properties: { by: EMAIL } })).status).toBe(200);

      // A store: the customer mapped to the member (by email), an order, a coupon job waiting on a store that is down.
      const connected = await api.post('/api/commerce/connect', { siteUrl: store.url, consumerKey: store.consumerKey, consumerSecret: store.consumerSecret, organizationId: 'org_1' });
      expect(connected.status, connected.text).toBe(201);
      expect((await api.patch(`/api/commerce/stores/${connected.body.id}/settings`, { memberIdentifier: 'email' })).status).toBe(200);
      expect((await store.deliverOne('customer.created', wooCustomer({ id: CUSTOMER, email: EMAIL, firstName: 'Erasable', lastName: 'Person' }))).status).toBe(200);
      expect((await store.deliverOne('order.updated', wooOrder({ id: ORDER, status: 'completed', customerId: CUSTOMER, email: EMAIL, modified: '2026-03-02T09:00:00' }))).status).toBe(200);
      const reward = await api.post('/api/v1/rewards', { name: '10% off', type: 'COUPON', pointsCost: 100, discountConfig: { type: 'PERCENTAGE', value: 10 } });
      store.goDown();
      expect((await api.post(`/api/v1/rewards/${reward.body.id}/redeem`, { externalId: EMAIL })).status).toBe(200);
      const couponCode = db.prepare('SELECT code FROM commerce_coupons').pluck().get() as string;
      expect(db.prepare('SELECT email, status FROM commerce_coupons').get()).toEqual({ email: EMAIL, status: 'PENDING' });

      // Discord: events before the link, the link (and its one-time bonus), an award after it.
      const secret = await configureCommunity(server);
      const sent = (eventId: string) => sendCommunityEvent(server, secret, { eventId, eventType: 'MESSAGE', communityUserId: DISCORD, communityUsername: DISCORD_NAME, channelId: 'c', messageId: eventId });
      expect((await sent('before-link')).body.outcome).toBe('not_linked');
      await ctx.write(() => linkCommunityAccount(db, server.projectId, EMAIL, { id: DISCORD, username: DISCORD_NAME }, clock.now()));
      expect((await sent('after-link')).body.outcome).toBe('awarded');
      const memberRow = db.prepare('SELECT id FROM members WHERE external_id = ?').pluck().get(EMAIL) as number;
      expect(db.prepare('SELECT count(*) FROM community_once WHERE community_user_id = ?').pluck().get(DISCORD)).toBe(1);
      expect(db.prepare('SELECT count(*) FROM commerce_customers WHERE member_id = ?').pluck().get(memberRow)).toBe(1);

      expect((await api.delete(path)).status).toBe(200);

      // The coupon job is gone: when the store comes back, no coupon carrying the email is made.
      store.down = false;
      clock.advance(10 * 60_000);
      expect(await server.coupons.runDue()).toBe(0);
      expect([...store.coupons.values()].some((coupon) => JSON.stringify(coupon).includes(EMAIL))).toBe(false);

      // Every table is accounted for, and none holds a personal value or an outside account of the member.
      const shadows = new Set((db.pragma('table_list') as { name: string; type: string }[]).filter((t) => t.type === 'shadow').map((t) => t.name));
      const tables = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'").pluck().all() as string[])
        .filter((name) => !shadows.has(name));
      expect(tables.sort()).toEqual(Object.keys(ERASURE).sort());
      const markers = [EMAIL, NAME, PHONE, DISCORD, DISCORD_NAME, String(CUSTOMER), String(ORDER), couponCode];
      for (const table of tables) {
        const rows = JSON.stringify(db.prepare(`SELECT * FROM "${table}"`).raw().all());
        // The order stays for its points, linked to nobody (checked below).
        for (const marker of markers) if (!(table === 'commerce_orders' && marker === String(ORDER))) expect(rows.includes(marker), `${marker} in ${table}: ${rows.slice(Math.max(0, rows.indexOf(marker) - 300), rows.indexOf(marker) + 100)}`).toBe(false);
      }
      expect(db.prepare('SELECT member_id, excluded FROM commerce_orders').get()).toEqual({ member_id: null, excluded: 'the member was erased' });
      expect(db.prepare('SELECT count(*) FROM transactions WHERE member_id = ? AND reference_id IS NOT NULL').pluck().get(memberRow)).toBe(0);
      expect(checkLedger(db)).toEqual([]);

      // The freed bytes were overwritten: the file holds none of it, without a VACUUM.
      db.pragma('wal_checkpoint(TRUNCATE)');
      const file = readFileSync(server.dbPath);
      for (const marker of [EMAIL, NAME, PHONE, DISCORD_NAME]) expect(file.includes(marker), marker).toBe(false);

      // A later order of that store customer makes a new member, not the erased one.
      expect((await store.deliverOne('order.updated', wooOrder({ id: ORDER + 1, status: 'completed', customerId: CUSTOMER, email: EMAIL, modified: '2026-03-02T11:00:00' }))).status).toBe(200);
      expect((await api.get(path)).status).toBe(200);
      const remapped = db.prepare('SELECT member_id FROM commerce_customers WHERE customer_id = ?').pluck().get(CUSTOMER);
      expect(remapped).not.toBe(memberRow);
      expect(remapped).toBe(db.prepare('SELECT id FROM members WHERE external_id = ?').pluck().get(EMAIL));
    } finally {
      await server.stop();
      await store.stop();
    }
  });
});
