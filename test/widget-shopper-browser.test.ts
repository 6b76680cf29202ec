import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { fulfilClaim } from '../src/domain/rewards/claims.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';
import { widgetHeader } from './helpers/widget.ts';

// Issue 25 in Chromium, as a German shopper: a session that outlives the signed ticket (item 1),
// My rewards (2), multiplier numbers (4), limits that explain themselves (9), every word in German
// (10), offline (12) and the guest view (7). The server's clock is a TestClock: "six minutes later"
// and "thirteen hours later" are clock.advance(), never a wait.

const ARTIFACTS = join(import.meta.dirname, '..', 'test-artifacts');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

let server: TestServer;
let shop: Server;
let shopUrl: string;
let profileDir: string;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  // Starts at the real time, so the browser's clock and the server's agree until a test moves the server's.
  server = await startTestServer({ clock: new TestClock(new Date()) });
  expect((await server.api.patch('/api/v1/project', { widget: { signUpUrl: 'https://shop.example/register', signInUrl: 'https://shop.example/login' } })).status).toBe(200);
  // The shop's page, on its own loopback origin: the widget calls the server across origins.
  // /strict: a shop whose CSP runs only scripts carrying its nonce; its own tag loads widget.js.
  shop = createServer((request, response) => (request.url === '/strict'
    ? response.writeHead(200, { 'content-type': 'text/html', 'content-security-policy': "script-src 'nonce-shop1'" })
      .end(`<!doctype html><title>Shop</title><h1>Shop</h1><script nonce="shop1" src="${server.url}/widget.js"></script>`)
    : response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Shop</title><h1>Shop</h1>')));
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}/`;
  profileDir = mkdtempSync(join(tmpdir(), 'punchcard-chromium-'));
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 800 }, locale: 'de-DE',
  });
  page = browser.pages()[0] ?? await browser.newPage();
  // The shop's server signing a ticket, as fetchAuth asks it to.
  await page.exposeFunction('signTicket', (externalId: string) => {
    const header = widgetHeader({ publicKey: server.publishableKey, widgetSecret: server.widgetSecret }, externalId, server.clock.now().getTime());
    const { timestamp, signature } = JSON.parse(Buffer.from(header, 'base64').toString()) as { timestamp: number; signature: string };
    return { timestamp, signature };
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  rmSync(profileDir, { recursive: true, force: true });
  shop?.closeAllConnections();
  await new Promise((resolve) => shop?.close(resolve));
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server?.stop();
});

interface PageWindow {
  Punchcard: { init(config: unknown): void; destroy(): void };
  signTicket(externalId: string): Promise<{ timestamp: number; signature: string }>;
  authCalls: number;
  failAuth: boolean;
}

/** Loads the shop's page and the widget for `externalId` (a guest without one); resolves 'ready' or the error's message. */
async function startWidget(externalId: string | undefined, options: { fetchAuth?: boolean; reload?: boolean } = {}) {
  if (options.reload !== false) {
    await page.goto(shopUrl);
    await page.addScriptTag({ url: `${server.url}/widget.js` });
  }
  const ticket = externalId === undefined ? {} : widgetHeader({ publicKey: server.publishableKey, widgetSecret: server.widgetSecret }, externalId, server.clock.now().getTime());
  const claims = externalId === undefined ? {} : JSON.parse(Buffer.from(ticket as string, 'base64').toString()) as Record<string, unknown>;
  const outcome = await page.evaluate(({ claims, publicKey, externalId, fetchAuth }) => new Promise<string>((resolve) => {
    const w = window as unknown as PageWindow;
    w.authCalls = 0;
    w.Punchcard.init({
      ...claims, publicKey, language: 'de',
      ...(fetchAuth ? {
        fetchAuth: async () => {
          w.authCalls++;
          if (w.failAuth) throw new Error('shop server down');
          return w.signTicket(externalId!);
        },
      } : {}),
      onReady: () => resolve('ready'), onError: (error: Error) => resolve(error.message),
    });
  }), { claims, publicKey: server.publishableKey, externalId, fetchAuth: options.fetchAuth ?? true });
  expect(outcome).toBe('ready');
}

const dialog = () => page.getByRole('dialog');
const launcher = () => page.locator('[data-punchcard] .launcher');
/** Opens a section from the home (going back there first), as a shopper taps its button. */
async function section(name: string) {
  const back = dialog().getByRole('button', { name: 'Zurück' });
  if (await back.count()) await back.click();
  await dialog().getByRole('navigation').getByRole('button', { name, exact: true }).click();
}
const award = async (externalId: string, amount: number, description?: string) =>
  expect((await server.api.post(`/api/v1/members/${externalId}/points`, { amount, ...(description ? { description } : {}) })).status).toBe(200);
async function reopen() {
  if (await dialog().count()) {
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
  }
  await launcher().click();
}
const authCalls = () => page.evaluate(() => (window as unknown as PageWindow).authCalls);

describe('a session that outlives the signed ticket', () => {
  it('works six minutes later without a new signature, and after it ends asks fetchAuth for one', async () => {
    await startWidget('ada');
    await award('ada', 100);
    await launcher().click();
    await dialog().getByTestId('balance').getByText('100').waitFor();

    server.clock.advance(6 * MINUTE);
    await award('ada', 50);
    await reopen();
    await dialog().getByTestId('balance').getByText('150').waitFor();
    expect(await authCalls()).toBe(0);

    server.clock.advance(13 * HOUR);
    await award('ada', 25);
    await reopen();
    await dialog().getByTestId('balance').getByText('175').waitFor();
    // The calls the opening makes side by side share one new signature.
    expect(await authCalls()).toBe(1);
  }, 60_000);

  it('says the session ended in German when no new signature can be had, and Retry recovers once it can', async () => {
    await startWidget('bea');
    await award('bea', 40);
    server.clock.advance(13 * HOUR);
    await page.evaluate(() => { (window as unknown as PageWindow).failAuth = true; });
    await launcher().click();
    await dialog().getByText('Deine Sitzung ist abgelaufen. Lade die Seite neu, um weiterzumachen.').first().waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'widget-session-expired-de.png') });
    await page.evaluate(() => { (window as unknown as PageWindow).failAuth = false; });
    await dialog().getByRole('button', { name: 'Erneut versuchen' }).first().click();
    await section('Verlauf');
    await dialog().getByText('Punkte gesammelt').first().waitFor();
    await expect(dialog().getByText(/Sitzung ist abgelaufen/).count()).resolves.toBe(0);
  }, 60_000);
});

describe('offline', () => {
  it('says so in German, keeps the last known balance, and recovers by itself', async () => {
    await startWidget('cem');
    await award('cem', 70);
    await launcher().click();
    await dialog().getByTestId('balance').getByText('70').waitFor();
    await browser.setOffline(true);
    try {
      await reopen();
      await dialog().getByTestId('offline').getByText('Du bist offline. Zuletzt bekanntes Guthaben: 70 Punkte.').waitFor();
      // The panels keep what they last showed.
      await dialog().getByTestId('balance').getByText('70').waitFor();
      await expect(launcher().textContent()).resolves.toContain('70');
      // A new start while offline shows the remembered balance instead of nothing.
      await page.evaluate(() => (window as unknown as PageWindow).Punchcard.destroy());
      await startWidget('cem', { reload: false });
      await expect(launcher().textContent()).resolves.toContain('70');
      await launcher().click();
      await dialog().getByTestId('offline').waitFor();
      await page.screenshot({ path: join(ARTIFACTS, 'widget-offline-de.png') });
      await award('cem', 5);
    } finally {
      await browser.setOffline(false);
    }
    // The browser's online event brings it back without a click.
    await dialog().getByTestId('offline').waitFor({ state: 'detached' });
    await dialog().getByTestId('balance').getByText('75').waitFor();
    await expect(launcher().textContent()).resolves.toContain('75');

    // A first start while offline, with nothing remembered, waits and starts once the browser is back online.
    await page.evaluate(() => (window as unknown as PageWindow).Punchcard.destroy());
    await browser.setOffline(true);
    const failed = page.waitForEvent('requestfailed');
    const starting = startWidget('eve', { reload: false });
    await failed;
    await browser.setOffline(false);
    await starting;
    await expect(launcher().textContent()).resolves.toContain('0');
  }, 60_000);
});

describe('rewards, numbers, limits and words', () => {
  it('My rewards keeps codes and statuses; multipliers show base × factor; closed buttons say until when; everything in German', async () => {
    const create = async (kind: string, body: Record<string, unknown>) => {
      const res = await server.api.post(`/api/v1/${kind}`, body);
      expect(res.status, res.text).toBe(201);
      return res.body.id as string;
    };
    const now = server.clock.now().getTime();
    await create('rewards', { name: 'Zehn Euro', type: 'COUPON', pointsCost: 100, discountConfig: { type: 'FIXED_CART', value: 10 } });
    await create('rewards', { name: 'Tasse', type: 'PHYSICAL', pointsCost: 50 });
    await create('games', { name: 'Täglich', type: 'DAILY_CHECKIN', checkinPoints: 5 });
    await create('badges', { name: 'Sammler', rarity: 'RARE', criteria: { type: 'totalPointsEarned', threshold: 100000 } });
    const multiplier = await create('multipliers', { name: 'Doppelt', multiplier: 2, startsAt: new Date(now - MINUTE).toISOString(), endsAt: new Date(now + HOUR).toISOString() });
    await startWidget('dora');
    await award('dora', 500);
    await launcher().click();

    await section('Check-in');
    await dialog().getByText('Check-in: 5 × 2 = 10 Punkte').waitFor();
    await dialog().getByRole('button', { name: 'Einchecken' }).click();
    await dialog().getByRole('status').getByText('+5 × 2 = 10 Punkte').waitFor();
    await dialog().getByText(/^Tageslimit erreicht\. Wieder möglich /).waitFor();

    await section('Teilen');
    const popup = page.waitForEvent('popup');
    await dialog().getByRole('button', { name: 'Facebook' }).click();
    await (await popup).close();
    await dialog().getByRole('status').getByText('+10 × 2 = 20 Punkte').waitFor();
    await dialog().getByText(/1 von 3 heute geteilt Wieder möglich /).waitFor();
    await expect(dialog().getByRole('button', { name: 'Facebook' }).isDisabled()).resolves.toBe(true);

    await section('Prämien');
    for (const name of ['Zehn Euro', 'Tasse']) {
      const card = dialog().locator('.card', { hasText: name });
      await card.getByRole('button', { name: 'Einlösen' }).click();
      // It asks first, in German: the question's own button spends.
      await card.getByRole('group', { name: new RegExp(`^${name === 'Tasse' ? 50 : 100} Punkte für ${name} einlösen\\?$`) }).getByRole('button', { name: 'Einlösen' }).click();
      await card.getByText('Eingelöst!').waitFor();
    }
    const claims = (await server.api.get('/api/v1/members/dora/claims')).body.claims as { id: string; reward: { name: string } }[];
    fulfilClaim(server.ctx.db, server.projectId, claims.find((claim) => claim.reward.name === 'Tasse')!.id, 'SHIPPED', server.clock.now());
    await section('Meine Prämien');
    const mine = dialog().getByTestId('my-rewards');
    await mine.getByText('Versandt').waitFor();
    await mine.getByText('Bereit zur Nutzung').waitFor();
    await expect(mine.locator('.code').textContent()).resolves.toMatch(/^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}$/);
    await expect(mine.getByRole('button', { name: 'Kopieren' }).count()).resolves.toBe(1);
    await page.screenshot({ path: join(ARTIFACTS, 'widget-my-rewards-de.png') });
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      const box = await dialog().boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(390);
      await page.screenshot({ path: join(ARTIFACTS, 'widget-my-rewards-de-390.png') });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    await section('Gutscheincode');
    await dialog().getByRole('textbox', { name: 'Gutscheincode' }).fill('GIBTSNICHT');
    await dialog().getByRole('button', { name: 'Einlösen' }).click();
    await dialog().getByRole('alert').getByText('Dieser Code ist ungültig').waitFor();

    await section('Abzeichen');
    await dialog().getByText('Selten').waitFor();

    await reopen();
    await section('Verlauf');
    const history = dialog().getByTestId('history');
    await history.getByText('Prämie eingelöst: Zehn Euro').waitFor();
    await history.getByText('Check-in (Tag 1)').waitFor();
    await history.getByText('Geteilt auf facebook').waitFor();
    await expect(history.textContent()).resolves.not.toMatch(/Reward claimed|Daily check-in|Shared on/);
    expect((await server.api.delete(`/api/v1/multipliers/${multiplier}`)).status).toBe(200);
  }, 90_000);
});

describe('a shop with a strict Content Security Policy', () => {
  it('runs the panels\' chunks under the nonce the shop gave widget.js', async () => {
    const violations: string[] = [];
    const onConsole = (message: { type(): string; text(): string }) => { if (/Content Security Policy/i.test(message.text())) violations.push(message.text()); };
    page.on('console', onConsole);
    try {
      await page.goto(`${shopUrl}strict`);
      await page.waitForFunction(() => 'Punchcard' in window);
      await startWidget('fay', { reload: false });
      await launcher().click();
      await section('Meine Prämien');
      await dialog().getByText('Noch nichts da').waitFor();
      await section('Aufgaben');
      await dialog().getByText('Noch nichts da').waitFor();
      expect(violations).toEqual([]);
    } finally {
      page.off('console', onConsole);
    }
  }, 60_000);
});

describe('the guest view', () => {
  it('shows a visitor who is not signed in the programme and the shop\'s sign-up and sign-in links', async () => {
    await startWidget(undefined);
    await launcher().click();
    const view = dialog().getByTestId('guest');
    await expect(view.getByRole('link', { name: 'Jetzt mitmachen' }).getAttribute('href')).resolves.toBe('https://shop.example/register');
    await expect(view.getByRole('link', { name: 'Anmelden' }).getAttribute('href')).resolves.toBe('https://shop.example/login');
    await view.getByText('So sammelst du Punkte').waitFor();
    await view.getByText('Zehn Euro').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'widget-guest-de.png') });
  }, 60_000);
});
