import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { startTestServer, type TestProject, type TestServer } from './helpers/server.ts';

// The widget in a real headless Chromium (Debian's /usr/bin/chromium; .ci/run installs it),
// against a real server serving /demo and /widget.js. Screenshots land in test-artifacts/.

const ARTIFACTS = join(import.meta.dirname, '..', 'test-artifacts');
const CHROMIUM_ARGS = ['--host-resolver-rules=MAP shop.test 127.0.0.1', '--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let server: TestServer;
/** The demo project /demo signs its visitors into. */
let demo: TestProject;
let profileDir: string;
let browser: BrowserContext;
let page: Page;

beforeAll(async () => {
  server = await startTestServer({ demo: true });
  demo = server.demoProject!;
  profileDir = mkdtempSync(join(tmpdir(), 'punchcard-chromium-'));
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launchPersistentContext(profileDir, {
    executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS, viewport: { width: 1280, height: 800 }, locale: 'en-US',
  });
  page = browser.pages()[0] ?? await browser.newPage();
  // The catalog the rewards, games and check-in panels show; one prize, so the game's outcome is known.
  for (const [kind, body] of [
    ['rewards', { name: '10% off', type: 'COUPON', pointsCost: 100, discountConfig: { type: 'PERCENTAGE', value: 10 } }],
    ['games', { name: 'Lucky wheel', type: 'SPIN_WHEEL', pointsCost: 10, prizes: [{ name: 'Fifty', value: 50, weight: 1 }, { name: 'Nothing', value: 0, weight: 0 }] }],
    ['games', { name: 'Daily visit', type: 'DAILY_CHECKIN', checkinPoints: 5, streakBonuses: [{ day: 3, bonus: 20 }] }],
  ] as const) expect((await demo.api.post(`/api/v1/${kind}`, body)).status).toBe(201);
  // Counts the page's pending timeouts and window/document listeners, to prove destroy() leaves none.
  await page.addInitScript(() => {
    const w = window as unknown as { pending: Set<number>; listeners: number };
    w.pending = new Set();
    w.listeners = 0;
    const setT = window.setTimeout.bind(window);
    const clearT = window.clearTimeout.bind(window);
    window.setTimeout = ((fn: () => void, ms?: number) => {
      const id = setT(() => { w.pending.delete(id); fn(); }, ms);
      w.pending.add(id);
      return id;
    }) as typeof window.setTimeout;
    window.clearTimeout = ((id: number) => { w.pending.delete(id); clearT(id); }) as typeof window.clearTimeout;
    for (const target of [window, document] as EventTarget[]) {
      const add = target.addEventListener.bind(target);
      const remove = target.removeEventListener.bind(target);
      target.addEventListener = (...args: Parameters<EventTarget['addEventListener']>) => { w.listeners++; add(...args); };
      target.removeEventListener = (...args: Parameters<EventTarget['removeEventListener']>) => { w.listeners--; remove(...args); };
    }
  });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  rmSync(profileDir, { recursive: true, force: true });
  await server?.stop();
});

async function loadDemo(query = '') {
  await page.goto(`${server.url}/demo${query}`);
  await page.waitForSelector('body[data-ready]', { timeout: 20_000 });
  expect(await page.textContent('#errors')).toBe('');
}

const dialog = () => page.getByRole('dialog');
/** Screenshots after the drawer's opening animation has finished. */
async function screenshot(name: string) {
  await page.waitForTimeout(400);
  await page.screenshot({ path: join(ARTIFACTS, name) });
}
const launcher = () => page.locator('[data-punchcard] .launcher');
/** Opens a section from the home (going back there first), as a shopper taps its button. */
async function section(name: string) {
  const back = dialog().getByRole('button', { name: 'Back' });
  if (await back.count()) await back.click();
  await dialog().getByRole('navigation').getByRole('button', { name, exact: true }).click();
}
/** What has focus, looking into the widget's shadow root. */
const focused = () => page.evaluate(() => {
  const host = document.querySelector('[data-punchcard]');
  const inner = host?.shadowRoot?.activeElement;
  return inner ? { inWidget: true, label: inner.getAttribute('aria-label') ?? inner.textContent, inDialog: !!inner.closest('[role=dialog]') } : { inWidget: false };
});

describe('the widget in Chromium', () => {
  it('loads on the demo page, opens, and shows the balance and history; an award shows after reopening', async () => {
    await loadDemo();
    // The launcher's name says the balance it shows.
    await expect(launcher().getAttribute('aria-label')).resolves.toBe('Open rewards, 0 points');
    await launcher().click();
    await expect(dialog().getByTestId('balance').textContent()).resolves.toMatch(/^0\s*points$/);
    await section('History');
    await dialog().getByText('No activity yet').waitFor();

    const award = await demo.api.post('/api/v1/members/demo-shopper/points', { amount: 1250, description: 'Thanks for your order' });
    expect(award.status).toBe(200);
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    await launcher().click();
    await dialog().getByTestId('balance').getByText('1,250').waitFor();
    await section('History');
    await dialog().getByText('Thanks for your order').waitFor();
    await expect(launcher().textContent()).resolves.toContain('1,250');
    await screenshot('widget-desktop.png');

    await page.setViewportSize({ width: 360, height: 740 });
    await page.reload();
    await page.waitForSelector('body[data-ready]');
    await launcher().click();
    await section('History');
    await dialog().getByText('Thanks for your order').waitFor();
    const box = await dialog().boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(360);
    await screenshot('widget-360.png');
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows nothing under the products while the page has no error to log (no empty grey bar)', async () => {
    await loadDemo();
    const errors = page.locator('#errors');
    await expect(errors.isVisible()).resolves.toBe(false);
    // The page ends with its products: nothing drawn below the last one.
    const bottom = await page.evaluate(() => {
      const last = (selector: string) => Math.max(...Array.from(document.querySelectorAll(selector), (el) => el.getBoundingClientRect().bottom));
      return { products: last('.product'), page: last('body > :not(script):not([data-punchcard])') };
    });
    expect(bottom.page).toBe(bottom.products);
    await screenshot('widget-48-demo-page.png');
    // An error still shows, where it did.
    await page.evaluate(() => { document.getElementById('errors')!.textContent = 'Something failed\n'; });
    await expect(errors.isVisible()).resolves.toBe(true);
  });

  it('speaks the language init asks for, with numbers and dates in that locale', async () => {
    await loadDemo('?language=fr');
    await expect(launcher().getAttribute('aria-label')).resolves.toBe('Ouvrir les récompenses, 1\u202f250 points');
    await launcher().click();
    await dialog().getByText('Votre solde').waitFor();
    await dialog().getByText('Historique').waitFor();
    // French groups thousands with a narrow no-break space.
    await expect(dialog().getByTestId('balance').textContent()).resolves.toMatch(/^1\u202f250\s*points$/);
    await screenshot('widget-fr.png');

    await loadDemo('?language=ja');
    await launcher().click();
    await dialog().getByText('ポイント残高').waitFor();
    await expect(page.getByRole('button', { name: '閉じる' }).count()).resolves.toBe(1);
    await screenshot('widget-ja.png');
  });

  it('in custom mode draws no launcher and follows open(), toggle() and the page\'s own buttons', async () => {
    await loadDemo('?mode=custom');
    await expect(launcher().count()).resolves.toBe(0);
    await page.evaluate(() => (window as any).Punchcard.toggle());
    await dialog().waitFor();
    await page.evaluate(() => (window as any).Punchcard.toggle());
    await dialog().waitFor({ state: 'detached' });
    await page.click('#open-rewards');
    await dialog().getByTestId('balance').waitFor();
    await screenshot('widget-custom.png');
    await page.evaluate(() => (window as any).Punchcard.close());
    await dialog().waitFor({ state: 'detached' });
  });

  it('works with the keyboard alone: Tab to the launcher, Enter opens, focus stays in the drawer, Escape closes', async () => {
    await loadDemo();
    await page.keyboard.press('Tab');
    await expect(focused()).resolves.toMatchObject({ inWidget: true, label: expect.stringMatching(/^Open rewards, /) });
    await page.keyboard.press('Enter');
    await dialog().waitFor();
    await expect(focused()).resolves.toMatchObject({ inDialog: true, label: 'Close' });
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press(i % 2 ? 'Shift+Tab' : 'Tab');
      await expect(focused()).resolves.toMatchObject({ inDialog: true });
    }
    const outline = await page.evaluate(() => {
      const active = document.querySelector('[data-punchcard]')!.shadowRoot!.activeElement!;
      return getComputedStyle(active).outlineStyle;
    });
    expect(outline).not.toBe('none');
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    await expect(focused()).resolves.toMatchObject({ inWidget: true, label: expect.stringMatching(/^Open rewards, /) });
  });

  it('takes theme colours and position from init, and the browser language over the project default', async () => {
    await loadDemo();
    await page.evaluate(() => {
      const w = window as any;
      w.Punchcard.destroy();
      Object.defineProperty(navigator, 'languages', { get: () => ['de-AT', 'en'] });
      document.body.removeAttribute('data-ready');
      w.Punchcard.init(Object.assign({}, w.demoConfig, { theme: { primaryColor: '#e11d48', position: 'left' } }));
    });
    await page.waitForSelector('body[data-ready]');
    await expect(launcher().getAttribute('aria-label')).resolves.toMatch(/^Prämien öffnen, [\d.]+ Punkte$/);
    const look = await launcher().evaluate((el) => ({ background: getComputedStyle(el).backgroundColor, left: el.getBoundingClientRect().left }));
    expect(look).toEqual({ background: 'rgb(225, 29, 72)', left: 20 });
    // init({language}) wins over the browser's language.
    await page.evaluate(() => {
      const w = window as any;
      document.body.removeAttribute('data-ready');
      w.Punchcard.init(Object.assign({}, w.demoConfig, { language: 'it' }));
    });
    await page.waitForSelector('body[data-ready]');
    await expect(launcher().getAttribute('aria-label')).resolves.toMatch(/^Apri i premi, [\d.]+ punti$/);
  });

  it('shortens its animations when the visitor prefers reduced motion', async () => {
    await page.emulateMedia({ reducedMotion: 'reduce' });
    await loadDemo();
    await launcher().click();
    const duration = await dialog().evaluate((el) => getComputedStyle(el).animationDuration);
    expect(parseFloat(duration)).toBeLessThanOrEqual(0.001);
    await page.emulateMedia({ reducedMotion: 'no-preference' });
    await loadDemo();
    await launcher().click();
    expect(parseFloat(await dialog().evaluate((el) => getComputedStyle(el).animationDuration))).toBeGreaterThan(0.1);
  });

  it('keeps working six minutes after the page was signed: init exchanged the signature for a session', async () => {
    await loadDemo();
    server.clock.advance(6 * 60_000);
    try {
      await launcher().click();
      await dialog().getByTestId('balance').waitFor();
      expect(await page.textContent('#errors')).toBe('');
    } finally {
      server.clock.advance(-6 * 60_000);
    }
  });

  it('destroy() leaves nothing behind, and init works again afterwards', async () => {
    await loadDemo();
    const before = await page.evaluate(() => ({ listeners: (window as any).listeners, pending: (window as any).pending.size }));
    await launcher().click();
    await dialog().waitFor();
    await page.evaluate(() => (window as any).Punchcard.destroy());
    // Preact schedules effects with a zero-delay timeout; let that run, then nothing may be left.
    await page.waitForTimeout(200);
    const after = await page.evaluate(() => ({
      host: document.querySelectorAll('[data-punchcard]').length,
      listeners: (window as any).listeners,
      pending: (window as any).pending.size,
    }));
    expect(after.host).toBe(0);
    expect(after.listeners).toBe(before.listeners);
    expect(after.pending).toBe(0);

    await page.evaluate(() => { document.body.removeAttribute('data-ready'); (window as any).Punchcard.init((window as any).demoConfig); });
    await page.waitForSelector('body[data-ready]');
    await launcher().click();
    await dialog().getByTestId('balance').waitFor();
    await page.evaluate(() => (window as any).Punchcard.destroy());
    await expect(page.locator('[data-punchcard]').count()).resolves.toBe(0);
    expect(checkLedger(server.ctx.db)).toEqual([]);
  });

  it('claims a reward (coupon code shown), plays a game and checks in, the balance following each', async () => {
    await loadDemo();
    const points = async () => (await demo.api.get('/api/v1/members/demo-shopper')).body.points as number;
    const start = await points();
    expect(start).toBeGreaterThanOrEqual(100);
    const launcherShows = (value: number) => page.waitForFunction((text) =>
      document.querySelector('[data-punchcard]')!.shadowRoot!.querySelector('.launcher')!.textContent!.includes(text), value.toLocaleString('en-US'));
    await launcher().click();

    await section('Rewards');
    await dialog().getByRole('button', { name: 'Claim' }).click();
    // It asks first: the question's own Claim spends.
    await dialog().getByRole('group', { name: 'Spend 100 points on 10% off?' }).getByRole('button', { name: 'Claim' }).click();
    await dialog().getByText('Your coupon code').waitFor();
    const couponCode = server.ctx.db.prepare('SELECT coupon_code FROM reward_claims ORDER BY id DESC LIMIT 1').pluck().get() as string;
    await dialog().getByText(couponCode).waitFor();
    await launcherShows(start - 100);
    expect(await points()).toBe(start - 100);
    await screenshot('widget-reward-claimed.png');

    await section('Games');
    await dialog().getByText('Lucky wheel').waitFor();
    await dialog().getByRole('button', { name: 'Play' }).click();
    await dialog().getByText('You won 50 points!').waitFor();
    await launcherShows(start - 100 - 10 + 50);
    await screenshot('widget-game.png');

    await page.setViewportSize({ width: 360, height: 740 });
    try {
      await section('Check-in');
      await dialog().getByText('+20 bonus in 2 days').waitFor();
      await dialog().getByRole('button', { name: 'Check in' }).click();
      await dialog().getByRole('button', { name: 'Checked in today' }).waitFor();
      await expect(dialog().locator('.big').textContent()).resolves.toBe('1');
      await dialog().getByText('+5 points').waitFor();
      await launcherShows(start - 60 + 5);
      expect(await points()).toBe(start - 60 + 5);
      const box = await dialog().boundingBox();
      expect(box!.x + box!.width).toBeLessThanOrEqual(360);
      await screenshot('widget-checkin-360.png');

      // This project has no referral page yet: the link is this server's /r/CODE landing page, shared like any other.
      await section('Refer a friend');
      const code = server.ctx.db.prepare('SELECT code FROM referral_codes').pluck().get() as string;
      await dialog().getByText(`${server.url}/r/${code}`, { exact: true }).waitFor();
      await expect(dialog().getByRole('link', { name: 'Facebook' }).getAttribute('href')).resolves.toContain(encodeURIComponent(`${server.url}/r/${code}`));
      await screenshot('widget-referral-360.png');
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    expect(checkLedger(server.ctx.db)).toEqual([]);
  }, 60_000);

  it('fetches a seldom-opened panel\'s chunk on its first show; offline it says so, and Retry brings the panel', async () => {
    await loadDemo();
    const chunks: string[] = [];
    const onRequest = (request: { url(): string }) => { if (/\/widget\/\w+\.[0-9a-f]{8}\.js$/.test(request.url())) chunks.push(request.url()); };
    page.on('request', onRequest);
    // The server cannot be reached for the chunk, as when the shopper's connection drops.
    let refuse = true;
    const pattern = `${server.url}/widget/myRewards.*.js`;
    await page.route(pattern, (route) => (refuse ? route.abort('internetdisconnected') : route.continue()));
    try {
      await launcher().click();
      await dialog().getByTestId('balance').waitFor();
      await dialog().getByRole('navigation').getByRole('button', { name: 'My rewards' }).waitFor();
      expect(chunks).toEqual([]);
      await section('My rewards');
      await dialog().getByRole('alert').getByText('This section could not be loaded. Check your connection.').waitFor();
      expect(chunks).toEqual([expect.stringMatching(new RegExp(`^${server.url}/widget/myRewards\\.[0-9a-f]{8}\\.js$`))]);
      await screenshot('widget-chunk-failed.png');
      expect(await page.textContent('#errors')).toBe('');

      refuse = false;
      await dialog().getByRole('button', { name: 'Retry' }).click();
      await dialog().getByTestId('my-rewards').or(dialog().getByText('Nothing here yet')).waitFor();
      await expect(dialog().getByTestId('chunk-failed').count()).resolves.toBe(0);
      // Once run, a chunk stays: back in the section it shows at once, without fetching it again.
      await section('My rewards');
      await dialog().getByTestId('my-rewards').or(dialog().getByText('Nothing here yet')).waitFor();
      expect(chunks).toHaveLength(2);
      // The script tags it added are gone again.
      await expect(page.locator('head script[src*="/widget/"]').count()).resolves.toBe(0);
    } finally {
      await page.unroute(pattern);
      page.off('request', onRequest);
    }
  });

  it('on an origin the project does not allow, logs one console line naming the origin and the command that allows it', async () => {
    // A shop's page on its own origin (shop.test, which Chromium resolves to 127.0.0.1: not a loopback origin by name).
    const shop = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Shop</title>'));
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    const shopPage = await browser.newPage();
    const lines: string[] = [];
    shopPage.on('console', (message) => { if (message.type() === 'error') lines.push(message.text()); });
    try {
      await loadDemo();
      const config = await page.evaluate(() => {
        const { onReady: _r, onError: _e, onWelcomeBonus: _w, ...signed } = (window as unknown as { demoConfig: Record<string, unknown> }).demoConfig;
        return signed;
      });
      const origin = `http://shop.test:${(shop.address() as AddressInfo).port}`;
      await shopPage.goto(`${origin}/`);
      await shopPage.addScriptTag({ url: `${server.url}/widget.js` });
      const failure = await shopPage.evaluate((signed) => new Promise<string>((resolve) => {
        (window as unknown as { Punchcard: { init(c: unknown): void } }).Punchcard.init({
          ...signed, onError: (error: Error) => resolve(error.message), onReady: () => resolve('ready'),
        });
      }), config);
      const expected = `The widget may not run on ${origin}: it is not among the project's allowed origins. `
        + `Allow it with: punchcard project set --project ${demo.projectId} --allow-origin ${origin}`;
      expect(failure).toBe(expected);
      expect(lines.filter((line) => line.includes('Punchcard'))).toEqual([`Punchcard: ${expected}`]);
    } finally {
      await shopPage.close();
      shop.closeAllConnections();
      await new Promise((resolve) => shop.close(resolve));
    }
  }, 60_000);
});
