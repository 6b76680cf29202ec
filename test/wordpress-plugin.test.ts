import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginZip } from '../integrations/woocommerce/build.ts';
import { startCommerceProxy, type CommerceProxy, type RecordedCall } from './helpers/commerce-proxy.ts';
import { request } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { missingWordPressTools, startWordPress, WordPressBrowser, type WordPressSite } from './helpers/wordpress.ts';

// The WordPress plugin (integrations/woocommerce/punchcard-loyalty) on real WordPress from Debian
// with a private MariaDB, WooCommerce's hooks and REST routes from test/fixtures/wordpress/woocommerce-shim.php.
// The plugin is installed from the zip `npm run build:wordpress-plugin` makes. It talks to a real
// Punchcard server (its /api/commerce routes call the shim's WooCommerce REST routes back) through a
// recording proxy (test/helpers/commerce-proxy.ts).
const missing = missingWordPressTools();
if (missing.length > 0 && process.env.CI) {
  throw new Error(`The WordPress plugin test needs ${missing.join(', ')}: apt-get install wordpress php-cli mariadb-server (.ci/run does).`);
}

const PAGE = '/wp-admin/admin.php?page=punchcard-loyalty';

/** The value of a hidden field of the form that posts `action`, such as its nonce. */
function formField(html: string, action: string, field: string): string {
  const form = html.split('<form').find((part) => part.includes(`name="action" value="${action}"`));
  const value = form && new RegExp(`name="${field}" value="([^"]*)"`).exec(form)?.[1];
  if (!value) throw new Error(`No ${field} in the form for ${action}`);
  return value;
}

/** The message the plugin's page shows after an action. */
const ENTITIES: Record<string, string> = { '&#039;': "'", '&quot;': '"', '&lt;': '<', '&gt;': '>', '&amp;': '&' };
const notice = (html: string) => /punchcard-loyalty-notice"><p>([^<]*)<\/p>/.exec(html)?.[1]?.replace(/&#039;|&quot;|&lt;|&gt;|&amp;/g, (entity) => ENTITIES[entity]!);

/** The config the plugin printed for widget.js. */
function printedConfig(html: string): { publicKey: string; externalId: string; timestamp: number; member: string; signature: string; apiUrl: string } {
  const json = /window\.PunchcardConfig = Object\.assign\((\{.*?\}), \{ fetchAuth/.exec(html)?.[1];
  if (!json) throw new Error('No window.PunchcardConfig on the page');
  return JSON.parse(json);
}

/** The X-Widget-Auth header widget.js sends for a config (widget/src/api.ts): base64 of the claims' JSON. */
const headerOf = (config: { publicKey: string; externalId: string; timestamp: number; member: string; signature: string }) =>
  Buffer.from(JSON.stringify({ publicKey: config.publicKey, externalId: config.externalId, timestamp: config.timestamp, signature: config.signature,
    member: config.member })).toString('base64');

describe.skipIf(missing.length > 0)('WordPress plugin on real WordPress', {
  meta: missing.length === 0 ? {} : { skipReason: `needs ${missing.join(', ')}: apt-get install wordpress php-cli mariadb-server (.ci/run does)` },
}, () => {
  let punchcard: TestServer;
  let proxy: CommerceProxy;
  let site: WordPressSite;
  let admin: WordPressBrowser;
  let customer: WordPressBrowser;
  let storeId = '';

  beforeAll(async () => {
    punchcard = await startTestServer();
    proxy = await startCommerceProxy(punchcard);
    site = await startWordPress(pluginZip());
    admin = new WordPressBrowser(site);
    await admin.signIn('admin', 'admin-password');
    customer = new WordPressBrowser(site);
    await customer.signIn('customer', 'customer-password');
  }, 180_000);

  afterAll(async () => {
    await site?.stop();
    await proxy?.close();
    await punchcard?.stop();
  });

  /** Fills in and sends the keys form; `connect` presses Connect rather than Save. */
  async function submitKeys(fields: Record<string, string>, connect = true) {
    const page = await admin.get(PAGE);
    return admin.post('/wp-admin/admin-post.php', {
      action: 'punchcard_loyalty_connect', _wpnonce: formField(page.html, 'punchcard_loyalty_connect', '_wpnonce'),
      url: proxy.url, secret_key: '', publishable_key: punchcard.publishableKey, widget_secret: '', consumer_key: '', consumer_secret: '',
      ...(connect ? { connect: '1' } : { save: '1' }), ...fields,
    });
  }

  const recorded = (method: string, path: string): RecordedCall[] => proxy.calls.filter((call) => call.method === method && call.path === path);
  const settingsPath = () => `/api/commerce/stores/${storeId}/settings`;
  /** Store settings changed at Punchcard, as the shop owner could with the API. */
  const patchSettings = (changes: Record<string, unknown>) => request(proxy.url, 'PATCH', settingsPath(), { body: changes, key: punchcard.secretKey });
  /** The webhooks registered in the store (the shim keeps them as one JSON option). */
  const webhooks = (): { id: number; topic: string; name: string; status: string; delivery_url: string; secret: string }[] =>
    Object.values(JSON.parse(site.sql("SELECT option_value FROM wp_options WHERE option_name = 'punchcard_shim_webhooks'")[0]?.[0] ?? '{}'));
  const restKeys = () => site.sql('SELECT key_id, description, permissions, consumer_key, consumer_secret FROM wp_woocommerce_api_keys');

  it('shows the settings page only to users who may manage WooCommerce', async () => {
    const editor = new WordPressBrowser(site);
    await editor.signIn('editor', 'editor-password');
    expect((await editor.get(PAGE)).status).toBe(403);
    expect((await customer.get(PAGE)).status).toBe(403);
    // Posting the form directly is refused too, whatever the nonce.
    const posted = await editor.post('/wp-admin/admin-post.php', { action: 'punchcard_loyalty_connect', _wpnonce: 'x', url: 'http://127.0.0.1:1', connect: '1' });
    expect(posted.status).toBe(403);
    const page = await admin.get(PAGE);
    expect(page.status).toBe(200);
    expect(page.html).toContain('name="secret_key"');
    expect(page.html).toContain('>Connect</button>');
  });

  it('shows Punchcard\'s message when connecting fails, and keeps no REST key', async () => {
    // Keys the admin entered that the store does not know: Punchcard's check against the store fails.
    const refused = await submitKeys({ secret_key: punchcard.secretKey, widget_secret: punchcard.widgetSecret,
      consumer_key: `ck_${'0'.repeat(40)}`, consumer_secret: `cs_${'0'.repeat(40)}` });
    expect(refused.url).toContain(PAGE);
    // One message whatever failed at the store (docs/woocommerce.md#errors): it names the store and what to check.
    expect(notice(refused.html)).toMatch(new RegExp(`^Could not connect: The store ${site.url} could not be connected: check that the address`));
    expect(refused.html).not.toContain('Disconnect');

    // The store refuses Punchcard's webhooks after the plugin made its own key: the key is deleted again.
    site.sql("INSERT INTO wp_options (option_name, option_value, autoload) VALUES ('punchcard_shim_refuse_webhooks', '1', 'no')");
    const answer = await submitKeys({});
    site.sql("DELETE FROM wp_options WHERE option_name = 'punchcard_shim_refuse_webhooks'");
    expect(notice(answer.html)).toMatch(new RegExp(`^Could not connect: The store ${site.url} could not be connected: check that the address`));
    expect(recorded('POST', '/api/commerce/connect').at(-1)!.body.consumerKey).toMatch(/^ck_/);
    expect(restKeys()).toEqual([]);
    expect(webhooks()).toEqual([]);

    // A wrong secret key gets Punchcard's own answer (from the real server's /api/v1/project).
    const wrong = await submitKeys({ secret_key: 'sk_live_wrong' });
    expect(notice(wrong.html)).toMatch(/^Could not connect: .*API key/);
    // An address where nothing answers says so.
    const unreachable = await submitKeys({ url: 'http://127.0.0.1:1', secret_key: punchcard.secretKey });
    expect(notice(unreachable.html)).toMatch(/^Could not connect: Punchcard at http:\/\/127\.0\.0\.1:1 could not be reached/);
    expect(recorded('POST', '/api/commerce/connect').every((call) => call.status >= 400)).toBe(true);
    expect(restKeys()).toEqual([]);
  });

  it('connects: a REST key made for Punchcard, the store registered with the key\'s project', async () => {
    const answer = await submitKeys({ secret_key: punchcard.secretKey });
    const connect = recorded('POST', '/api/commerce/connect').at(-1)!;
    expect(connect.status).toBe(201);
    storeId = connect.answer.id;
    expect(connect.answer).toMatchObject({ id: expect.stringMatching(/^store_/), siteUrl: site.url, organizationId: punchcard.projectId });
    expect(notice(answer.html)).toBe(`Connected to Punchcard as store ${storeId}.`);
    expect(answer.html).toContain(`Connected as store ${storeId} of project ${punchcard.projectId}.`);
    expect(connect.authorization).toBe(`Bearer ${punchcard.secretKey}`);
    expect(connect.body).toEqual({ siteUrl: site.url, consumerKey: expect.stringMatching(/^ck_[0-9a-f]{40}$/),
      consumerSecret: expect.stringMatching(/^cs_[0-9a-f]{40}$/), organizationId: punchcard.projectId });
    // Stored as WooCommerce stores keys: the consumer key hashed, the secret as it is.
    const keys = restKeys();
    expect(keys).toEqual([[expect.any(String), 'Punchcard Loyalty', 'read_write',
      createHmac('sha256', 'wc-api').update(connect.body.consumerKey).digest('hex'), connect.body.consumerSecret]]);
    // Punchcard used that key to register its webhooks in the store.
    const registered = webhooks();
    expect(registered.map((hook) => [hook.topic, hook.status])).toEqual([['order.updated', 'active'], ['customer.created', 'active'], ['customer.updated', 'active']]);
    for (const hook of registered) expect(hook.delivery_url).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/commerce/webhooks/${storeId}$`));
    // The store settings were read once connected, and show on the page.
    expect(recorded('GET', settingsPath()).length).toBeGreaterThan(0);
    expect(answer.html).toMatch(/name="showInAccount" value="1" checked/);
    // The secrets never come back to the page.
    expect(answer.html).not.toContain(punchcard.secretKey);
    expect(answer.html).not.toContain(punchcard.widgetSecret);

    // Reconnecting replaces the key and the webhooks: one of each at a time.
    const again = await submitKeys({});
    expect(recorded('POST', '/api/commerce/connect').at(-1)!.status).toBe(200);
    expect(notice(again.html)).toBe(`Connected to Punchcard as store ${storeId}.`);
    expect(restKeys()).toHaveLength(1);
    expect(restKeys()[0]![0]).not.toBe(keys[0]![0]);
    expect(webhooks()).toHaveLength(3);
    expect(webhooks().map((hook) => hook.id)).not.toEqual(registered.map((hook) => hook.id));
  });

  it('signs the widget for a signed-in customer, and shows guests nothing', async () => {
    const home = await customer.get('/');
    expect(home.html).toContain(` async src='${proxy.url}/widget.js'`);
    const config = printedConfig(home.html);
    expect(config).toMatchObject({ publicKey: punchcard.publishableKey, externalId: String(site.users.customer), apiUrl: proxy.url,
      member: '{"name":"Ada Lövelace","email":"customer@shop.test"}' });
    expect(home.html).not.toContain(punchcard.widgetSecret);

    // The signature the plugin made in PHP (over UTF-8, the name has an ö) opens a widget session on the real server.
    const init = await request(punchcard.url, 'POST', '/api/widget/init', { body: {}, headers: { 'x-widget-auth': headerOf(config) } });
    expect(init.status).toBe(200);
    expect(init.body.member).toMatchObject({ externalId: String(site.users.customer), name: 'Ada Lövelace', email: 'customer@shop.test' });

    // fetchAuth's endpoint answers fresh claims and the header computed in PHP.
    const fresh = await customer.get('/wp-admin/admin-ajax.php?action=punchcard_loyalty_widget_auth');
    const { header, ...signed } = JSON.parse(fresh.html);
    expect(JSON.parse(Buffer.from(header, 'base64').toString('utf8'))).toEqual(signed);
    expect(signed).toMatchObject({ publicKey: punchcard.publishableKey, externalId: String(site.users.customer) });
    const again = await request(punchcard.url, 'POST', '/api/widget/init', { body: {}, headers: { 'x-widget-auth': header } });
    expect(again.status).toBe(200);

    const guest = new WordPressBrowser(site);
    const page = await guest.get('/');
    expect(page.status).toBe(200);
    expect(page.html).not.toContain('widget.js');
    expect(page.html).not.toContain('PunchcardConfig');
    expect((await guest.get('/wp-admin/admin-ajax.php?action=punchcard_loyalty_widget_auth')).html).not.toContain('signature');
  });

  it('names the member by email when the store setting memberIdentifier says so', async () => {
    expect((await patchSettings({ memberIdentifier: 'email' })).status).toBe(200);
    // Opening the plugin's page reads the store settings again; the storefront uses what it read.
    expect((await admin.get(PAGE)).html).toMatch(/<option value="email" selected/);
    const config = printedConfig((await customer.get('/')).html);
    expect(config.externalId).toBe('customer@shop.test');
    const init = await request(punchcard.url, 'POST', '/api/widget/init', { body: {}, headers: { 'x-widget-auth': headerOf(config) } });
    expect(init.status).toBe(200);
    expect((await patchSettings({ memberIdentifier: 'customerId' })).status).toBe(200);
    await admin.get(PAGE);
    expect(printedConfig((await customer.get('/')).html).externalId).toBe(String(site.users.customer));
  });

  it('shows points and history in My Account while showInAccount is on, and nothing once it is off', async () => {
    const externalId = String(site.users.customer);
    const award = await punchcard.api.post(`/api/v1/members/${externalId}/points`, { amount: 120, description: 'Order #1001' });
    expect(award.status).toBe(200);
    const accountUrl = '/my-account/loyalty-points/';
    const shown = await customer.get(accountUrl);
    expect(shown.html).toContain('woocommerce-MyAccount-navigation-link--loyalty-points');
    expect(shown.html).toContain('You have 120 points.');
    expect(shown.html).toContain('Order #1001');
    expect(shown.html).toContain('+120');
    expect(recorded('GET', `/api/v1/members/${externalId}/points`).at(-1)!.authorization).toBe(`Bearer ${punchcard.secretKey}`);

    // The admin turns it off on the plugin's page; the plugin saves it at Punchcard (PATCH).
    const page = await admin.get(PAGE);
    const saved = await admin.post('/wp-admin/admin-post.php', {
      action: 'punchcard_loyalty_store_settings', _wpnonce: formField(page.html, 'punchcard_loyalty_store_settings', '_wpnonce'),
      pointsPerDollar: '2', rounding: 'ROUND', minOrderAmount: '', pointsOnStatus: 'processing', memberIdentifier: 'customerId', excludeShipping: '1',
    });
    expect(notice(saved.html)).toBe('Store settings saved.');
    const changes = { pointsPerDollar: 2, rounding: 'ROUND', minOrderAmount: null, pointsOnStatus: 'processing', memberIdentifier: 'customerId',
      excludeShipping: true, excludeTax: false,
      excludeGuest: false, showInAccount: false };
    expect(recorded('PATCH', settingsPath()).at(-1)!.body).toEqual(changes);
    expect((await request(proxy.url, 'GET', settingsPath(), { key: punchcard.secretKey })).body.settings).toMatchObject(changes);
    const hidden = await customer.get(accountUrl);
    expect(hidden.status).toBe(200);
    expect(hidden.html).toContain('woocommerce-MyAccount-navigation');
    expect(hidden.html).not.toContain('loyalty-points"');
    expect(hidden.html).not.toContain('points.');
    expect(hidden.html).not.toContain('Order #1001');

    // A refusal is shown as Punchcard words it.
    const refused = await admin.post('/wp-admin/admin-post.php', {
      action: 'punchcard_loyalty_store_settings', _wpnonce: formField(page.html, 'punchcard_loyalty_store_settings', '_wpnonce'),
      pointsPerDollar: '-1', rounding: 'ROUND', minOrderAmount: '', pointsOnStatus: 'processing',
    });
    expect(recorded('PATCH', settingsPath()).at(-1)!.status).toBe(400);
    expect(notice(refused.html)).toBe(`Could not save the store settings: ${recorded('PATCH', settingsPath()).at(-1)!.answer.message}`);
  });

  it('imports existing balances from WooCommerce Points & Rewards and myCred, safely again, listing myCred balances its log disagrees with', async () => {
    // The tables as those plugins create them (WooCommerce Points & Rewards' install, myCred's install_log).
    site.sql(`CREATE TABLE wp_wc_points_rewards_user_points (id bigint(20) NOT NULL AUTO_INCREMENT, user_id bigint(20) NOT NULL,
      points bigint(20) NOT NULL, points_balance bigint(20) NOT NULL, order_id bigint(20) DEFAULT NULL, date datetime NOT NULL,
      KEY idx_wc_points_rewards_user_points_user_id_points_balance (user_id,points_balance), PRIMARY KEY (id)) DEFAULT CHARACTER SET utf8mb4`);
    site.sql(`CREATE TABLE IF NOT EXISTS wp_myCRED_log (id int(11) NOT NULL AUTO_INCREMENT, ref VARCHAR(256) NOT NULL, ref_id int(11) DEFAULT NULL,
      user_id int(11) DEFAULT NULL, creds bigint(22) DEFAULT NULL, ctype VARCHAR(64) DEFAULT 'mycred_default', time bigint(20) DEFAULT NULL,
      entry LONGTEXT DEFAULT NULL, data LONGTEXT DEFAULT NULL, PRIMARY KEY (id), UNIQUE KEY id (id)) DEFAULT CHARSET = utf8mb4`);
    site.sql(`INSERT INTO wp_users (user_login, user_pass, user_nicename, user_email, user_url, user_registered, user_activation_key, user_status, display_name)
      VALUES ('bea', '', 'bea', 'bea@shop.test', '', NOW(), '', 0, 'Bea Import')`);
    const customerId = site.users.customer;
    const bea = Number(site.sql("SELECT ID FROM wp_users WHERE user_login = 'bea'")[0]![0]);
    // Points & Rewards: a row per award, summed per user (Ada 100 + 50, spent nothing; Bea 40).
    site.sql(`INSERT INTO wp_wc_points_rewards_user_points (user_id, points, points_balance, order_id, date) VALUES
      (${customerId}, 100, 100, 1, NOW()), (${customerId}, 50, 50, 2, NOW()), (${bea}, 60, 40, 3, NOW())`);
    // myCred: the balance in user meta; Bea's log says 15, her balance 12 (an award lost to a race).
    site.sql(`INSERT INTO wp_usermeta (user_id, meta_key, meta_value) VALUES (${customerId}, 'mycred_default', '30'), (${bea}, 'mycred_default', '12')`);
    site.sql(`INSERT INTO wp_myCRED_log (ref, user_id, creds, ctype, time, entry) VALUES ('purchase', ${customerId}, 10, 'mycred_default', 1, 'x'),
      ('purchase', ${customerId}, 20, 'mycred_default', 2, 'x'), ('purchase', ${bea}, 10, 'mycred_default', 3, 'x'), ('purchase', ${bea}, 5, 'mycred_default', 4, 'x')`);

    const page = await admin.get(PAGE);
    expect(page.html).toContain('Import existing balances');
    expect(page.html).toContain('WooCommerce Points &amp; Rewards (2 customers)');
    expect(page.html).toContain('myCred (2 customers)');
    const nonce = /"nonce":"([0-9a-f]+)"/.exec(page.html)![1]!;
    /** What the page's script does: calls the batch action until the run is done. */
    const runImport = async (source: string, browser = admin) => {
      const calls: any[] = [];
      for (let start = true; calls.length < 10; start = false) {
        const answer = await browser.post('/wp-admin/admin-ajax.php', { action: 'punchcard_loyalty_import', _ajax_nonce: nonce, source, meta_key: '', ...(start ? { start: '1' } : {}) });
        const json = JSON.parse(answer.html);
        calls.push(json);
        if (!json.success || json.data.done) break;
      }
      return calls;
    };
    const balance = async (externalId: string | number) => (await punchcard.api.get(`/api/v1/members/${externalId}`)).body;

    const first = await runImport('woocommerce-points');
    expect(first.at(-1)).toMatchObject({ success: true, data: { done: true, processed: 2, total: 2, created: 1, updated: 1, unchanged: 0, skipped: 0, points: 190 } });
    expect(await balance(customerId)).toMatchObject({ points: 120 + 150 });
    expect(await balance(bea)).toMatchObject({ points: 40, email: 'bea@shop.test', name: 'Bea Import' });
    const entry = (await punchcard.api.get(`/api/v1/members/${bea}/points?history=true`)).body.transactions[0];
    expect(entry).toMatchObject({ type: 'IMPORTED', source: 'import', amount: 40, referenceId: `import:woocommerce-points:${site.url}` });
    expect(entry.description).toMatch(new RegExp(`^Opening balance from WooCommerce Points & Rewards \\(batch woocommerce-points-\\w{8}-${customerId}-${bea}, row 1\\)$`));
    // Again: nothing twice.
    const again = await runImport('woocommerce-points');
    expect(again.at(-1).data).toMatchObject({ done: true, created: 0, updated: 0, unchanged: 2, points: 0 });
    expect(await balance(customerId)).toMatchObject({ points: 270 });

    const mycred = await runImport('mycred');
    expect(mycred.at(-1).data).toMatchObject({ done: true, processed: 2, updated: 2, points: 42, mismatches: 1, listed: [{ user: bea, balance: 12, log: 15 }] });
    expect(await balance(bea)).toMatchObject({ points: 52 });
    const summary = await admin.get(PAGE);
    expect(summary.html).toContain('Last import: 2 customers read; 0 new members, 2 updated, 0 unchanged, 0 skipped; 42 points imported.');
    expect(summary.html).toContain(`User ${bea}: balance 12, log 15`);

    // Only those who may manage WooCommerce may run it.
    const editor = new WordPressBrowser(site);
    await editor.signIn('editor', 'editor-password');
    const refused = await editor.post('/wp-admin/admin-ajax.php', { action: 'punchcard_loyalty_import', _ajax_nonce: nonce, source: 'mycred', start: '1' });
    expect(refused.status).toBe(403);
    expect(await balance(bea)).toMatchObject({ points: 52 });
  });

  it('disconnects: the store is removed at Punchcard, its webhooks and REST key deleted', async () => {
    const page = await admin.get(PAGE);
    const answer = await admin.post('/wp-admin/admin-post.php', {
      action: 'punchcard_loyalty_disconnect', _wpnonce: formField(page.html, 'punchcard_loyalty_disconnect', '_wpnonce'),
    });
    expect(notice(answer.html)).toBe('Disconnected. Punchcard no longer receives this store\'s orders.');
    expect(answer.html).not.toContain(`Connected as store ${storeId}`);
    expect(recorded('DELETE', '/api/commerce/connect').at(-1)).toMatchObject({ authorization: `Bearer ${punchcard.secretKey}`, body: null, status: 200,
      answer: { id: storeId, deleted: true } });
    expect(webhooks()).toEqual([]);
    expect(restKeys()).toEqual([]);
    // My Account has no Points once the store is disconnected.
    expect((await customer.get('/my-account/')).html).not.toContain('loyalty-points"');
  });

  it('logs no PHP error, warning or notice from the plugin', () => {
    const lines = site.debugLog().split('\n').filter((line) => line.includes('punchcard-loyalty'));
    expect(lines).toEqual([]);
  });
});
