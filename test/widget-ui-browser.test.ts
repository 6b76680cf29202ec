import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { fulfilClaim } from '../src/domain/rewards/claims.ts';
import { EN, KEYS, LANGUAGES, type Key } from '../widget/src/strings.ts';
import { TRANSLATIONS } from '../widget/src/translations.ts';
import { startTestServer, TestClock, type TestProject, type TestServer } from './helpers/server.ts';
import { widgetHeader, type WidgetSigner } from './helpers/widget.ts';

// Issue 25's shopper UI in Chromium: a home that sells the programme (item 5), navigation that fits
// a 320 px phone in every language (6), focus that stays in the drawer (3), quests a shopper acts on
// (8), right-to-left (11), axe-core at desktop and phone sizes (13), the looks (14) and one init
// (speed). Screenshots in English, German and Arabic land in test-artifacts/.

const ARTIFACTS = join(import.meta.dirname, '..', 'test-artifacts');
const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const SIZES = [[1280, 800], [390, 844], [320, 640]] as const;
const DAY = 86_400_000;
/** Every section the catalog below fills, by its key; all turned on (the leaderboard too). */
const SECTIONS: Key[] = ['rewards', 'myRewards', 'quests', 'checkin', 'referrals', 'share', 'games', 'badges', 'promo', 'leaderboard', 'history'];

let server: TestServer;
let shop: Server;
let shopUrl: string;
let browser: Browser;
let page: Page;
let profileDir: string;

/** One language's string for a key, as the widget shows it. */
const word = (language: string, key: Key) => (language === 'en' ? EN : TRANSLATIONS[language]!).split('|')[KEYS.indexOf(key)]!;

async function create(kind: string, body: Record<string, unknown>, project: TestProject | TestServer = server) {
  const res = await project.api.post(`/api/v1/${kind}`, body);
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

beforeAll(async () => {
  server = await startTestServer({ clock: new TestClock(new Date()) });
  expect((await server.api.patch('/api/v1/project', { widget: { programName: 'Bean Club', features: { leaderboard: true } } })).status).toBe(200);
  const now = server.clock.now().getTime();
  await create('rewards', { name: '10% off your order', type: 'COUPON', pointsCost: 500, discountConfig: { type: 'PERCENTAGE', value: 10 } });
  await create('rewards', { name: 'Free coffee mug', type: 'PHYSICAL', pointsCost: 1500 });
  await create('rewards', { name: 'Free shipping', type: 'COUPON', pointsCost: 200, discountConfig: { type: 'FIXED_CART', value: 5 } });
  await create('quests', { name: 'Write a review', completionMode: 'SELF_REPORT', points: 50, linkUrl: 'https://shop.example/reviews', description: 'Tell others about your last order.' });
  await create('quests', { name: 'Visit three days', completionMode: 'SELF_REPORT', points: 30, targetCount: 3, endsAt: new Date(now + 5 * DAY).toISOString() });
  await create('quests', { name: 'Place five orders', completionMode: 'AUTOMATED', action: 'order', points: 200, targetCount: 5 });
  await create('levels', { level: 1, name: 'Silver', minTotalPointsEarned: 500 });
  await create('levels', { level: 2, name: 'Gold', minTotalPointsEarned: 1500 });
  await create('multipliers', { name: 'Double weekend', multiplier: 2, startsAt: new Date(now - 60_000).toISOString(), endsAt: new Date(now + 2 * DAY).toISOString() });
  await create('games', { name: 'Lucky wheel', type: 'SPIN_WHEEL', pointsCost: 10, prizes: [{ name: 'Fifty', value: 50, weight: 1 }, { name: 'Nothing', value: 0, weight: 1 }] });
  await create('games', { name: 'Daily visit', type: 'DAILY_CHECKIN', checkinPoints: 5, streakBonuses: [{ day: 3, bonus: 20 }] });
  await create('badges', { name: 'First steps', rarity: 'COMMON', description: 'Earn your first 100 points', criteria: { type: 'totalPointsEarned', threshold: 100 } });
  await create('badges', { name: 'Big spender', rarity: 'EPIC', description: 'Earn 5000 points', criteria: { type: 'totalPointsEarned', threshold: 5000 } });
  for (const externalId of ['ada', 'bo', 'cy', 'dee']) {
    expect((await server.api.post('/api/v1/members', { externalId, name: externalId === 'ada' ? 'Ada' : null })).status).toBe(201);
    expect((await server.api.post(`/api/v1/members/${externalId}/points`, { amount: 700 })).status).toBe(200);
  }
  // The shop's pages on their own loopback origin: a left-to-right one, a right-to-left one, and
  // one that loads widget.js with the async snippet of docs/widget.md.
  shop = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://shop');
    const rtl = url.pathname === '/rtl';
    const snippet = url.pathname === '/async' ? `<script>window.PunchcardConfig = ${url.searchParams.get('config')};</script><script async src="${server.url}/widget.js"></script>` : '';
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="${rtl ? 'ar' : 'en'}" dir="${rtl ? 'rtl' : 'ltr'}">
<head><meta charset="utf-8"><title>Shop</title></head><body><h1>${rtl ? 'متجر' : 'Shop'}</h1><p>${rtl ? 'صفحة المتجر' : 'The shop page'}</p>
<button id="page-button" onclick="Punchcard.open()">Rewards</button>${snippet}</body></html>`);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  profileDir = mkdtempSync(join(tmpdir(), 'punchcard-chromium-'));
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US', reducedMotion: 'reduce' });
  // A step that cannot happen fails with what it waited for, well within the test's time.
  page.setDefaultTimeout(10_000);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  rmSync(profileDir, { recursive: true, force: true });
  shop?.closeAllConnections();
  await new Promise((resolve) => shop?.close(resolve));
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server?.stop();
});

interface Start { externalId?: string; language?: string; path?: string; signer?: WidgetSigner; config?: Record<string, unknown>; member?: unknown }

/** Loads a shop page and the widget for a member (signed as the shop's server would), resolving once it is ready. */
async function startWidget({ externalId = 'ada', language = 'en', path = '/', signer, config = {}, member }: Start = {}) {
  signer ??= { publicKey: server.publishableKey, widgetSecret: server.widgetSecret };
  await page.goto(`${shopUrl}${path}`);
  await page.addScriptTag({ url: `${server.url}/widget.js` });
  await page.addScriptTag({ path: AXE });
  const header = widgetHeader({ publicKey: signer.publicKey, widgetSecret: signer.widgetSecret }, externalId, server.clock.now().getTime(), { member });
  const claims = JSON.parse(Buffer.from(header, 'base64').toString()) as Record<string, unknown>;
  const outcome = await page.evaluate((settings) => new Promise<string>((resolve) => {
    (window as unknown as { Punchcard: { init(config: unknown): void } }).Punchcard.init({
      ...settings, onReady: () => resolve('ready'), onError: (error: Error) => resolve(error.message),
    });
  }), { ...claims, publicKey: signer.publicKey, language, ...config });
  expect(outcome).toBe('ready');
}

const dialog = () => page.getByRole('dialog');
const launcher = () => page.locator('[data-punchcard] .launcher');
const nav = () => dialog().getByRole('navigation');
/** Waits until the view shown has loaded (its chunk and its data). */
const settled = (language = 'en') => page.waitForFunction((loading) => {
  const body = document.querySelector('[data-punchcard]')?.shadowRoot?.querySelector('.body');
  return body && !body.textContent!.includes(loading) && body.getAttribute('aria-busy') !== 'true';
}, word(language, 'loading'));
/** Opens a section from the home, as a shopper taps its button, and waits for it. */
async function section(key: Key, language = 'en') {
  const back = dialog().getByRole('button', { name: word(language, 'back') });
  if (await back.count()) await back.click();
  await nav().getByRole('button', { name: word(language, key), exact: true }).click();
  await dialog().getByRole('heading', { name: word(language, key), exact: true }).waitFor();
  await settled(language);
}
async function openHome(language = 'en') {
  await launcher().click();
  await dialog().getByTestId('balance').waitFor();
  await nav().getByRole('button').nth(SECTIONS.length - 1).waitFor();
  await settled(language);
}
/** Where focus is, looking into the widget's shadow root. */
const focused = () => page.evaluate(() => {
  const inner = document.querySelector('[data-punchcard]')?.shadowRoot?.activeElement;
  return inner ? { inDialog: !!inner.closest('[role=dialog]'), name: inner.getAttribute('aria-label') ?? inner.textContent } : { inDialog: false, name: document.activeElement?.id ?? '' };
});
interface AxeResult { id: string; impact: string | null; nodes: { target: unknown[]; failureSummary?: string }[] }
/**
 * axe-core's serious and critical violations on the page as it is now. axe looks into the widget's
 * (open) shadow root: a node there has a target that starts with the path through the host, and
 * the answer says how many such nodes passed, so a run that missed the widget cannot pass unseen.
 */
async function axeViolations() {
  const { violations, widgetNodes } = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: unknown): Promise<{ violations: AxeResult[]; passes: AxeResult[] }> } }).axe;
    const result = await axe.run(document);
    return { violations: result.violations, widgetNodes: result.passes.flatMap((rule) => rule.nodes).filter((node) => Array.isArray(node.target[0])).length };
  });
  expect(widgetNodes).toBeGreaterThan(0);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, nodes: v.nodes.map((node) => `${JSON.stringify(node.target)}: ${node.failureSummary}`) }));
}

describe('the home (item 5)', () => {
  it('greets by name, shows balance, level and the way to the next, the running multiplier, ways to earn and ways to redeem', async () => {
    await startWidget({ member: { name: 'Ada' } });
    await openHome();
    const home = dialog();
    await home.getByRole('heading', { name: 'Bean Club' }).waitFor();
    await home.getByText('Hello, Ada!').waitFor();
    await expect(home.getByTestId('balance').textContent()).resolves.toMatch(/^700\s*points$/);
    await home.getByText('Your level: Silver').waitFor();
    await home.getByText('800 more points to Gold').waitFor();
    await expect(home.getByRole('progressbar', { name: 'Gold' }).getAttribute('aria-valuenow')).resolves.toBe('700');
    await home.getByText(/^×2 points: Double weekend, until /).waitFor();
    const earn = home.locator('section', { has: page.getByRole('heading', { name: 'Ways to earn' }) });
    for (const [name, value] of [['Write a review', '+50'], ['Visit three days', '+30'], ['Place five orders', '+200'], ['Check-in', '+5'], ['Refer a friend', '+100'], ['Share', '+10'], ['Games', 'up to 50']]) {
      await expect(earn.getByRole('button', { name: new RegExp(`^${name}`) }).textContent(), name).resolves.toContain(value);
    }
    // Where a multiplier applies, the way says so.
    await expect(earn.getByRole('button', { name: /^Check-in/ }).textContent()).resolves.toContain('×2');
    const redeem = home.locator('section', { has: page.getByRole('heading', { name: 'Ways to redeem' }) });
    await expect(redeem.getByRole('button').allTextContents()).resolves.toEqual([
      'Free shippingAvailable now200 points', '10% off your orderAvailable now500 points', 'Free coffee mug1,500 points',
    ]);
    // A way opens its section.
    await redeem.getByRole('button', { name: /^Free coffee mug/ }).click();
    await dialog().getByRole('heading', { name: 'Rewards' }).waitFor();
    await dialog().getByText('800 more points needed').waitFor();
  });

  it('shows no part that has nothing to say: no greeting without a name, no level, multiplier or ways in an empty programme', async () => {
    const empty = server.addProject('Empty shop');
    expect((await empty.api.patch('/api/v1/project', { widget: { features: { referrals: false, share: false } } })).status).toBe(200);
    await startWidget({ externalId: 'newbie', signer: { publicKey: empty.publishableKey, widgetSecret: empty.widgetSecret } });
    await launcher().click();
    await dialog().getByTestId('balance').waitFor();
    await nav().getByRole('button', { name: 'History' }).waitFor();
    await settled();
    await dialog().getByRole('heading', { name: 'Empty shop' }).waitFor();
    const text = await dialog().textContent();
    for (const absent of ['Hello', 'Your level', 'more points to', '×', 'Ways to earn', 'Ways to redeem']) expect(text, absent).not.toContain(absent);
    await expect(dialog().getByTestId('level').count()).resolves.toBe(0);
  });
});

describe('navigation that fits a phone (item 6)', () => {
  it('reaches every section by a visible button at 320 px in every language, and the drawer keeps its height', async () => {
    await page.setViewportSize({ width: 320, height: 640 });
    try {
      for (const language of LANGUAGES) {
        await startWidget({ externalId: 'bo', language });
        await openHome(language);
        const tiles = await page.evaluate(() => {
          const root = document.querySelector('[data-punchcard]')!.shadowRoot!;
          return Array.from(root.querySelectorAll<HTMLElement>('nav button')).map((tile) => {
            tile.scrollIntoView({ block: 'nearest' });
            const box = tile.getBoundingClientRect();
            // A word broken in two lies on two lines: two boxes for its range.
            const text = tile.lastChild!;
            const broken = [...(text.textContent ?? '').matchAll(/\S+/g)].filter((word) => {
              const range = document.createRange();
              range.setStart(text, word.index);
              range.setEnd(text, word.index + word[0].length);
              return new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size > 1;
            }).map((word) => word[0]);
            // Clipped text shows as content wider or taller than the button.
            return { name: tile.textContent, left: box.left, right: box.right, broken, clipped: tile.scrollWidth > tile.clientWidth || tile.scrollHeight > tile.clientHeight, visible: box.width > 40 && box.height > 40 };
          });
        });
        expect(tiles.map((tile) => tile.name), language).toEqual(SECTIONS.map((key) => word(language, key)));
        for (const tile of tiles) {
          expect(tile, `${language} ${tile.name}`).toMatchObject({ clipped: false, visible: true, broken: [] });
          expect(tile.left >= 0 && tile.right <= 320, `${language} ${tile.name}`).toBe(true);
        }
        if (!['en', 'de', 'ar'].includes(language)) continue;
        const height = (await dialog().boundingBox())!.height;
        for (const key of SECTIONS) {
          await section(key, language);
          expect((await dialog().boundingBox())!.height, `${language} ${key}`).toBe(height);
          await expect(dialog().getByRole('button', { name: word(language, 'back') }).isVisible()).resolves.toBe(true);
        }
        await dialog().getByRole('button', { name: word(language, 'back') }).click();
        // Back at the home, focus is on the button of the section just left.
        await expect.poll(focused).toMatchObject({ inDialog: true, name: expect.stringContaining(word(language, 'history')) });
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  }, 180_000);
});

describe('focus (item 3)', () => {
  it('stays in the open drawer from the first Tab on, in every view, skipping what is hidden or disabled', async () => {
    await startWidget({ externalId: 'cy' });
    await launcher().focus();
    await page.keyboard.press('Enter');
    await dialog().waitFor();
    // Every section's button is in place first: one appearing after the last stop would take the Tab that wraps.
    await nav().getByRole('button').nth(SECTIONS.length - 1).waitFor();
    await settled();
    await expect(focused()).resolves.toMatchObject({ inDialog: true, name: 'Close' });
    await page.keyboard.press('Shift+Tab');
    await expect(focused()).resolves.toMatchObject({ inDialog: true });
    await page.keyboard.press('Tab');
    await expect(focused()).resolves.toMatchObject({ inDialog: true, name: 'Close' });
    for (const key of ['home', 'quests', 'rewards', 'referrals'] as const) {
      if (key !== 'home') await section(key);
      for (let i = 0; i < 25; i++) {
        await page.keyboard.press(i < 15 ? 'Tab' : 'Shift+Tab');
        await expect(focused(), `${key} ${i}`).resolves.toMatchObject({ inDialog: true });
      }
    }
    // Focus on the page (a script moved it there): Tab brings it back in, Escape still closes.
    await page.evaluate(() => document.getElementById('page-button')!.focus());
    await page.keyboard.press('Tab');
    await expect(focused()).resolves.toMatchObject({ inDialog: true });
    await page.evaluate(() => document.getElementById('page-button')!.focus());
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
  });

  it('closes on Escape from any section and on a click beside it, and gives focus back to what opened it', async () => {
    await startWidget({ externalId: 'cy' });
    await launcher().click();
    await section('quests');
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    await expect(focused()).resolves.toMatchObject({ inDialog: false, name: expect.stringMatching(/^Open rewards, 7\d\d points$/) });
    await launcher().click();
    await dialog().waitFor();
    await page.mouse.click(40, 300);
    await dialog().waitFor({ state: 'detached' });
    await expect(focused()).resolves.toMatchObject({ name: expect.stringMatching(/^Open rewards/) });

    // Opened by the page's own button (custom mode), focus goes back to that button.
    await startWidget({ externalId: 'cy', config: { displayMode: 'custom' } });
    await page.locator('#page-button').click();
    await dialog().waitFor();
    await page.keyboard.press('Escape');
    await dialog().waitFor({ state: 'detached' });
    await expect(focused()).resolves.toEqual({ inDialog: false, name: 'page-button' });
  });
});

describe('quests a shopper can act on (item 8)', () => {
  it('shows the steps, the end date and the link, and "I did it" pays with the multiplier shown', async () => {
    await startWidget({ externalId: 'dee' });
    await launcher().click();
    await section('quests');
    const card = (name: string) => dialog().locator('li.card', { hasText: name });
    const review = card('Write a review');
    await expect(review.getByRole('link', { name: 'Go there' }).getAttribute('href')).resolves.toBe('https://shop.example/reviews');
    await expect(review.getByRole('link', { name: 'Go there' }).getAttribute('target')).resolves.toBe('_blank');
    const visits = card('Visit three days');
    await visits.getByText(/Ends \w+ \d+, \d{4}/).waitFor();
    await expect(visits.getByRole('list', { name: '0 of 3 steps done' }).getByRole('listitem').count()).resolves.toBe(3);
    await expect(card('Place five orders').getByRole('button', { name: 'I did it' }).count()).resolves.toBe(0);
    for (const step of [1, 2]) {
      await visits.getByRole('button', { name: 'I did it' }).click();
      await visits.getByRole('list', { name: `${step} of 3 steps done` }).waitFor();
    }
    await page.screenshot({ path: join(ARTIFACTS, 'widget-quest-steps-en.png') });
    await visits.getByRole('button', { name: 'I did it' }).click();
    await visits.getByRole('status').getByText('+30 × 2 = 60 points').waitFor();
    await visits.getByText('Completed').waitFor();
    await expect(visits.getByRole('button', { name: 'I did it' }).count()).resolves.toBe(0);
    await review.getByRole('button', { name: 'I did it' }).click();
    await review.getByRole('status').getByText('+50 × 2 = 100 points').waitFor();
    await expect(launcher().textContent()).resolves.toContain('860');
    expect((await server.api.get('/api/v1/members/dee')).body.points).toBe(860);
  });
});

describe('right to left (item 11)', () => {
  it('lays Arabic and Hebrew out mirrored on any page, and English left to right on a right-to-left page', async () => {
    const layout = () => page.evaluate(() => {
      const root = document.querySelector('[data-punchcard]')!.shadowRoot!;
      const x = (selector: string) => root.querySelector(selector)!.getBoundingClientRect().left;
      return { dir: root.querySelector('.root')!.getAttribute('dir'), direction: getComputedStyle(root.querySelector('.body')!).direction, title: x('h2'), close: x('.x') };
    });
    for (const [language, path, dir] of [['ar', '/rtl', 'rtl'], ['he', '/', 'rtl'], ['en', '/rtl', 'ltr']] as const) {
      await startWidget({ externalId: 'bo', language, path });
      await openHome(language);
      const seen = await layout();
      expect(seen, `${language} on ${path}`).toMatchObject({ dir, direction: dir });
      // The close button is at the end of the header: left in a right-to-left language.
      expect(dir === 'rtl' ? seen.close < seen.title : seen.close > seen.title, `${language} on ${path}`).toBe(true);
      await section('rewards', language);
      // A shop's name in another script keeps its own order: "10% off your order", not "off your order 10%".
      await expect(dialog().locator('bdi', { hasText: '10% off your order' }).evaluate((el) => getComputedStyle(el).direction)).resolves.toBe('ltr');
      const back = await page.evaluate(() => document.querySelector('[data-punchcard]')!.shadowRoot!.querySelector('.back')!.getBoundingClientRect().left);
      expect(dir === 'rtl' ? back > seen.title : back < seen.title).toBe(true);
      await page.screenshot({ path: join(ARTIFACTS, `widget-rtl-${language}${path === '/rtl' ? '-on-rtl-page' : ''}.png`) });
    }
  });
});

describe('accessibility (item 13)', () => {
  it('has no serious or critical axe violation in any view at desktop and phone sizes', async () => {
    try {
      for (const [width, height] of SIZES) {
        await page.setViewportSize({ width, height });
        await startWidget({ externalId: 'bo', member: { name: 'Bo' } });
        await expect(launcher().getAttribute('aria-label')).resolves.toMatch(/^Open rewards, [\d,]+ points$/);
        expect(await axeViolations(), `closed ${width}`).toEqual([]);
        await openHome();
        expect(await axeViolations(), `home ${width}`).toEqual([]);
        for (const key of SECTIONS) {
          await section(key);
          expect(await axeViolations(), `${key} ${width}`).toEqual([]);
        }
      }
      // Right to left, and the guest view.
      await startWidget({ externalId: 'bo', language: 'ar', path: '/rtl' });
      await openHome('ar');
      expect(await axeViolations(), 'home ar').toEqual([]);
      await page.goto(`${shopUrl}/`);
      await page.addScriptTag({ url: `${server.url}/widget.js` });
      await page.addScriptTag({ path: AXE });
      await page.evaluate((publicKey) => new Promise<void>((resolve) => {
        (window as unknown as { Punchcard: { init(config: unknown): void } }).Punchcard.init({ publicKey, onReady: resolve });
      }), server.publishableKey);
      await launcher().click();
      await dialog().getByTestId('guest').waitFor();
      expect(await axeViolations(), 'guest').toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  }, 180_000);

  it('shows badge descriptions in plain sight, with no tooltip to hover for', async () => {
    await startWidget({ externalId: 'bo' });
    await launcher().click();
    await section('badges');
    await expect(dialog().getByText('Earn 5000 points').isVisible()).resolves.toBe(true);
    await expect(dialog().getByText('Earn your first 100 points').isVisible()).resolves.toBe(true);
    await expect(dialog().locator('[title]').count()).resolves.toBe(0);
  });
});

describe('looks the same everywhere (item 14)', () => {
  it('draws SVG icons, never emoji, in any view; follows the theme\'s radius and font; names the programme', async () => {
    await startWidget({ externalId: 'bo' });
    await expect(launcher().locator('svg').count()).resolves.toBe(1);
    await openHome();
    const texts = [await dialog().textContent()];
    for (const key of SECTIONS) {
      await section(key);
      texts.push(await dialog().textContent());
    }
    expect(texts.join(' ').match(/\p{Extended_Pictographic}/gu)).toBeNull();
    await expect(dialog().getByRole('heading', { name: 'History' }).count()).resolves.toBe(1);

    expect((await server.api.patch('/api/v1/project', { widget: { programName: null, theme: { borderRadius: 3, fontFamily: 'Georgia, serif' } } })).status).toBe(200);
    try {
      await startWidget({ externalId: 'bo' });
      await launcher().click();
      await dialog().getByRole('heading', { name: 'Default' }).waitFor();
      await section('rewards');
      const look = await dialog().locator('.card').first().evaluate((card) => ({ radius: getComputedStyle(card).borderRadius, font: getComputedStyle(card).fontFamily }));
      expect(look).toEqual({ radius: '3px', font: 'Georgia, serif' });
    } finally {
      expect((await server.api.patch('/api/v1/project', { widget: { programName: 'Bean Club', theme: { borderRadius: 12, fontFamily: null } } })).status).toBe(200);
    }
  });

  it('keeps a coupon code on one line at 320 px; "New code" asks first; the referral\'s links are not the paid Share buttons', async () => {
    await page.setViewportSize({ width: 320, height: 640 });
    try {
      await startWidget({ externalId: 'bo' });
      await launcher().click();
      await section('rewards');
      await dialog().locator('.card', { hasText: 'Free shipping' }).getByRole('button', { name: 'Claim' }).click();
      await dialog().getByRole('group', { name: 'Spend 200 points on Free shipping?' }).getByRole('button', { name: 'Claim' }).click();
      const code = dialog().locator('.coupon');
      await code.waitFor();
      const lines = await code.evaluate((el) => {
        const range = document.createRange();
        range.selectNodeContents(el);
        return new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size;
      });
      expect(lines).toBe(1);
      const box = (await code.boundingBox())!;
      expect(box.x + box.width).toBeLessThanOrEqual(320);
      await page.screenshot({ path: join(ARTIFACTS, 'widget-coupon-320.png') });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }

    const regenerations: string[] = [];
    const onRequest = (request: { url(): string; method(): string }) => { if (request.url().endsWith('/referral/code')) regenerations.push(request.method()); };
    page.on('request', onRequest);
    await section('referrals');
    const oldLink = await dialog().locator('.code').textContent();
    await dialog().getByRole('heading', { name: 'Send your link' }).waitFor();
    await expect(dialog().getByRole('link', { name: 'Facebook' }).count()).resolves.toBe(1);
    await expect(dialog().getByRole('button', { name: 'Facebook' }).count()).resolves.toBe(0);
    await dialog().getByRole('button', { name: 'New code' }).click();
    const question = dialog().getByRole('group', { name: 'Make a new code? Your current link will stop working.' });
    await expect.poll(focused).toMatchObject({ name: 'Cancel' });
    await question.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(focused).toMatchObject({ name: 'New code' });
    expect(regenerations).toEqual([]);
    await dialog().getByRole('button', { name: 'New code' }).click();
    await question.getByRole('button', { name: 'Yes, new code' }).click();
    await question.waitFor({ state: 'detached' });
    await expect(dialog().locator('.code').textContent()).resolves.not.toBe(oldLink);
    expect(regenerations).toEqual(['POST']);
    page.off('request', onRequest);
    expect((await fetch(oldLink!)).status).toBe(404);

    // The Share section pays per share: buttons, with the points they bring.
    await section('share');
    await dialog().getByText('Share: +10 × 2 = 20 points').waitFor();
    await expect(dialog().getByRole('button', { name: 'Facebook' }).count()).resolves.toBe(1);
    await expect(dialog().getByRole('link', { name: 'Facebook' }).count()).resolves.toBe(0);
  });
});

describe('one init (speed)', () => {
  it('starts from the async snippet with one init that brings the words, and fetches no strings file', async () => {
    const requests: string[] = [];
    const onRequest = (request: { url(): string; method(): string }) => { if (request.url().startsWith(server.url)) requests.push(`${request.method()} ${new URL(request.url()).pathname}`); };
    page.on('request', onRequest);
    const header = widgetHeader({ publicKey: server.publishableKey, widgetSecret: server.widgetSecret }, 'bo', server.clock.now().getTime());
    const config = { ...JSON.parse(Buffer.from(header, 'base64').toString()), language: 'de' };
    await page.goto(`${shopUrl}/async?config=${encodeURIComponent(JSON.stringify(config))}`);
    await launcher().waitFor();
    await expect(launcher().getAttribute('aria-label')).resolves.toMatch(/^Prämien öffnen, /);
    page.off('request', onRequest);
    expect(requests.filter((line) => !line.startsWith('OPTIONS'))).toEqual(['GET /widget.js', 'POST /api/widget/init']);
  });
});

describe('screenshots', () => {
  it('shows the home and the quests in English, German and Arabic at desktop and phone sizes, and the English leaderboard', async () => {
    try {
      for (const language of ['en', 'de', 'ar']) {
        for (const [width, height] of SIZES) {
          await page.setViewportSize({ width, height });
          await startWidget({ externalId: 'ada', language, path: language === 'ar' ? '/rtl' : '/', member: { name: 'Ada' } });
          await openHome(language);
          await page.screenshot({ path: join(ARTIFACTS, `widget-home-${language}-${width}.png`) });
          await section('quests', language);
          await page.screenshot({ path: join(ARTIFACTS, `widget-quests-${language}-${width}.png`) });
          if (language === 'en') {
            await section('leaderboard', language);
            await page.screenshot({ path: join(ARTIFACTS, `widget-leaderboard-${language}-${width}.png`) });
          }
        }
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  }, 120_000);
});

// Issue 48, the widget where shoppers spend: a claim asks first (item 11), games show what they
// give and its odds (12), a custom claim says where it stands and a referral code stays whole (13),
// and the launcher's own text. Each is looked at in English and Arabic (screenshots widget-48-*).

/** A new member with points, for one test alone. */
async function member(externalId: string, points: number) {
  expect((await server.api.post('/api/v1/members', { externalId })).status).toBe(201);
  expect((await server.api.post(`/api/v1/members/${externalId}/points`, { amount: points })).status).toBe(200);
}
const balanceOf = async (externalId: string) => (await server.api.get(`/api/v1/members/${externalId}`)).body.points as number;
/** Arabic's sentence as the widget writes it: numbers in the locale, names isolated (FSI…PDI). */
const arabic = (key: Key, values: Record<string, string | number>) => word('ar', key).replace(/\{(\w)\}/g, (_, name: string) =>
  (typeof values[name] === 'number' ? new Intl.NumberFormat('ar').format(values[name]) : `\u2068${values[name]}\u2069`));
/** The POSTs of reward claims the page sends. */
function claimPosts() {
  const posts: string[] = [];
  const onRequest = (request: { url(): string; method(): string }) => {
    if (request.method() === 'POST' && request.url().endsWith('/api/widget/rewards')) posts.push(request.url());
  };
  page.on('request', onRequest);
  return { posts, stop: () => page.off('request', onRequest) };
}
const card = (name: string) => dialog().locator('.card', { hasText: name });

describe('a claim asks before it spends (issue 48, item 11)', () => {
  it('names the reward and its cost; focus moves in, Escape or Cancel keep the points; a double tap claims once', async () => {
    await member('eve', 3000);
    const { posts, stop } = claimPosts();
    try {
      await startWidget({ externalId: 'eve' });
      await launcher().click();
      await section('rewards');
      const percent = card('10% off your order');
      await percent.getByRole('button', { name: 'Claim' }).click();
      const question = percent.getByRole('group', { name: 'Spend 500 points on 10% off your order?' });
      await question.waitFor();
      await expect.poll(focused).toMatchObject({ inDialog: true, name: 'Cancel' });
      expect(await axeViolations(), 'question').toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, 'widget-48-claim-ask-en.png') });
      // Escape cancels the question, not the drawer; focus is back on Claim.
      await page.keyboard.press('Escape');
      await question.waitFor({ state: 'detached' });
      await expect(dialog().count()).resolves.toBe(1);
      await expect.poll(focused).toMatchObject({ inDialog: true, name: 'Claim' });
      // By keyboard: Enter asks, and Enter again (on Cancel) spends nothing.
      await page.keyboard.press('Enter');
      await question.waitFor();
      await page.keyboard.press('Enter');
      await question.waitFor({ state: 'detached' });
      expect(posts).toEqual([]);

      // Yes, tapped twice before the widget can redraw (two clicks in one task): one claim.
      await percent.getByRole('button', { name: 'Claim' }).click();
      await question.getByRole('button', { name: 'Claim' }).evaluate((button: HTMLElement) => {
        button.click();
        button.click();
      });
      await percent.getByRole('status').getByText('Claimed!').waitFor();
      await expect.poll(focused).toMatchObject({ inDialog: true, name: expect.stringMatching(/^Claimed!/) });
      expect(posts).toHaveLength(1);

      // A double tap on Claim asks (its second tap lands on the question's text); a double tap on the question's Claim claims once.
      const shipping = card('Free shipping');
      await shipping.getByRole('button', { name: 'Claim' }).dblclick();
      const asked = shipping.getByRole('group', { name: 'Spend 200 points on Free shipping?' });
      await asked.waitFor();
      expect(posts).toHaveLength(1);
      await asked.getByRole('button', { name: 'Claim' }).dblclick();
      await shipping.locator('.coupon').waitFor();
      expect(posts).toHaveLength(2);
      await expect.poll(() => balanceOf('eve')).toBe(2300);
      const claims = (await server.api.get('/api/v1/members/eve/claims')).body.claims as { reward: { name: string } }[];
      expect(claims.map((claim) => claim.reward.name)).toEqual(['Free shipping', '10% off your order']);
      await expect(launcher().textContent()).resolves.toContain('2,300');

      // In Arabic at 320 px: the question in Arabic, the reward's name kept whole in its own direction.
      await page.setViewportSize({ width: 320, height: 640 });
      await startWidget({ externalId: 'eve', language: 'ar', path: '/rtl' });
      await launcher().click();
      await section('rewards', 'ar');
      const mug = card('Free coffee mug');
      await mug.getByRole('button', { name: word('ar', 'claim') }).click();
      const arQuestion = mug.getByRole('group');
      await expect(arQuestion.locator('p').textContent()).resolves.toBe(arabic('spendAsk', { n: 1500, x: 'Free coffee mug' }));
      await expect.poll(focused).toMatchObject({ inDialog: true, name: word('ar', 'cancel') });
      const box = (await mug.boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(320);
      expect(await axeViolations(), 'question ar 320').toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, 'widget-48-claim-ask-ar-320.png') });
      await arQuestion.getByRole('button', { name: word('ar', 'cancel') }).click();
      await arQuestion.waitFor({ state: 'detached' });
      expect(posts).toHaveLength(2);
      expect(await balanceOf('eve')).toBe(2300);
    } finally {
      stop();
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  }, 60_000);
});

describe('games show what can be won (issue 48, item 12)', () => {
  it('writes each prize on its wheel segment, lists every game\'s prizes with their odds where shown, and stops on the prize won', async () => {
    const names = ['Ten', 'Twenty', 'Fifty', 'Hundred', 'Nothing', 'Jackpot'];
    const weights = [30, 25, 20, 14, 10, 1];
    await create('games', { name: 'Prize wheel', type: 'SPIN_WHEEL', prizes: names.map((name, i) => ({ name, value: [10, 20, 50, 100, 0, 500][i], weight: weights[i] })) });
    await create('games', { name: 'Mystery dice', type: 'DICE', showOdds: false, prizes: [{ name: 'Five', value: 5, weight: 1 }, { name: 'None', value: 0, weight: 1 }] });
    await member('fay', 500);
    await startWidget({ externalId: 'fay' });
    await launcher().click();
    await section('games');
    const wheel = card('Prize wheel');
    /** Each label of the wheel: its text, and the angle of its middle from the wheel's top, clockwise. */
    const labels = () => wheel.getByTestId('wheel').evaluate((el) => {
      const c = el.getBoundingClientRect();
      return Array.from(el.querySelectorAll('span'), (span) => {
        const r = span.getBoundingClientRect();
        const x = r.left + r.width / 2 - (c.left + c.width / 2);
        const y = r.top + r.height / 2 - (c.top + c.height / 2);
        return { name: span.textContent, angle: ((Math.atan2(x, -y) * 180) / Math.PI + 360) % 360 };
      });
    });
    const idle = await labels();
    expect(idle.map((label) => label.name)).toEqual(names);
    // Each in the middle of its 60° segment (10° either side to spare).
    expect(idle.filter((label, i) => label.angle < i * 60 + 10 || label.angle > (i + 1) * 60 - 10)).toEqual([]);
    const prizes = (name: string) => card(name).getByRole('list', { name: 'What you can win' }).getByRole('listitem').allTextContents();
    await expect(prizes('Prize wheel')).resolves.toEqual(['Ten · 30% chance', 'Twenty · 25% chance', 'Fifty · 20% chance', 'Hundred · 14% chance', 'Nothing · 10% chance', 'Jackpot · 1% chance']);
    await expect(prizes('Lucky wheel')).resolves.toEqual(['Fifty · 50% chance', 'Nothing · 50% chance']);
    // The operator hides these odds: the prizes alone.
    await expect(prizes('Mystery dice')).resolves.toEqual(['Five', 'None']);
    await wheel.scrollIntoViewIfNeeded();
    await page.screenshot({ path: join(ARTIFACTS, 'widget-48-games-en.png') });

    await wheel.getByRole('button', { name: 'Play' }).click();
    await wheel.getByRole('status').getByText(/^(You won .*!|No prize this time)$/).waitFor();
    const won = server.ctx.db.prepare(`SELECT prize_index FROM game_plays p JOIN members m ON m.id = p.member_id WHERE m.external_id = 'fay'`).pluck().get() as number;
    // The wheel stops with the won prize's name under the pointer, at the top.
    const stopped = await labels();
    const top = stopped.reduce((best, label) => (Math.min(label.angle, 360 - label.angle) < Math.min(best.angle, 360 - best.angle) ? label : best));
    expect(top.name).toBe(names[won]);
    expect(Math.min(top.angle, 360 - top.angle)).toBeLessThan(10);
    await page.screenshot({ path: join(ARTIFACTS, 'widget-48-games-played-en.png') });

    await page.setViewportSize({ width: 320, height: 640 });
    try {
      await startWidget({ externalId: 'fay', language: 'ar', path: '/rtl' });
      await launcher().click();
      await section('games', 'ar');
      const list = card('Prize wheel').getByRole('list', { name: word('ar', 'prizes') });
      await expect(list.getByRole('listitem').first().textContent()).resolves.toBe(`Ten · ${arabic('odds', { p: 30 })}`);
      const box = (await card('Prize wheel').boundingBox())!;
      expect(box.x).toBeGreaterThanOrEqual(0);
      expect(box.x + box.width).toBeLessThanOrEqual(320);
      expect(await axeViolations(), 'games ar 320').toEqual([]);
      await card('Prize wheel').scrollIntoViewIfNeeded();
      await page.screenshot({ path: join(ARTIFACTS, 'widget-48-games-ar-320.png') });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  }, 60_000);
});

describe('a custom reward says where it stands, and a referral code stays whole (issue 48, item 13)', () => {
  it('shows a CUSTOM claim as being prepared, then delivered once the shop fulfils it, never "Ready to use"', async () => {
    await create('rewards', { name: 'Thank-you call', type: 'CUSTOM', pointsCost: 100 });
    await member('gus', 1000);
    await page.setViewportSize({ width: 320, height: 640 });
    try {
      await startWidget({ externalId: 'gus', language: 'ar', path: '/rtl' });
      await launcher().click();
      await section('rewards', 'ar');
      const call = card('Thank-you call');
      await call.getByRole('button', { name: word('ar', 'claim') }).click();
      await call.getByRole('group').getByRole('button', { name: word('ar', 'claim') }).click();
      await expect(call.getByTestId('claim-status').textContent()).resolves.toBe(word('ar', 's_PENDING'));
      expect(await axeViolations(), 'custom claim ar 320').toEqual([]);
      await page.screenshot({ path: join(ARTIFACTS, 'widget-48-custom-claim-ar-320.png') });
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
    await startWidget({ externalId: 'gus' });
    await launcher().click();
    await section('myRewards');
    const mine = dialog().getByTestId('my-rewards').getByRole('listitem').filter({ hasText: 'Thank-you call' });
    await mine.getByText('Being prepared').waitFor();
    await expect(dialog().getByText('Ready to use').count()).resolves.toBe(0);
    const [claim] = (await server.api.get('/api/v1/members/gus/claims')).body.claims as { id: string }[];
    fulfilClaim(server.ctx.db, server.projectId, claim!.id, 'DELIVERED', server.clock.now());
    await section('myRewards');
    await mine.getByText('Delivered').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'widget-48-custom-delivered-en.png') });
  });

  it('keeps the referral code on one line at any width, the link wrapping before it', async () => {
    expect((await server.api.patch('/api/v1/project', { referral: { referralUrl: 'https://coffee-beans-and-more.example/pages/refer-a-friend' } })).status).toBe(200);
    try {
      for (const [language, path] of [['en', '/'], ['ar', '/rtl']] as const) {
        await page.setViewportSize({ width: 320, height: 640 });
        await startWidget({ externalId: 'gus', language, path });
        await launcher().click();
        await section('referrals', language);
        const link = dialog().getByTestId('referral-link');
        const code = server.ctx.db.prepare(`SELECT r.code FROM referral_codes r JOIN members m ON m.id = r.member_id WHERE m.external_id = 'gus'`).pluck().get() as string;
        await expect(link.textContent()).resolves.toBe(`https://coffee-beans-and-more.example/pages/refer-a-friend?ref=${code}`);
        await page.screenshot({ path: join(ARTIFACTS, `widget-48-referral-${language}-320.png`) });
        // Every width from 80 to 300 px: the link takes as many lines as it needs, the code one.
        const widths = await link.evaluate((el: HTMLElement, whole: string) => {
          const lines = (node: Node) => {
            const range = document.createRange();
            range.selectNodeContents(node);
            return new Set(Array.from(range.getClientRects(), (rect) => Math.round(rect.top))).size;
          };
          const codeNode = Array.from(el.querySelectorAll('span')).find((span) => span.textContent === whole)!;
          const seen: { width: number; link: number; code: number }[] = [];
          for (let width = 80; width <= 300; width += 2) {
            el.style.flex = `0 0 ${width}px`;
            seen.push({ width, link: lines(el), code: lines(codeNode) });
          }
          el.style.flex = '';
          return seen;
        }, code);
        expect(widths.filter((seen) => seen.code !== 1), language).toEqual([]);
        expect(Math.max(...widths.map((seen) => seen.link)), language).toBeGreaterThan(3);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      expect((await server.api.patch('/api/v1/project', { referral: { referralUrl: null } })).status).toBe(200);
    }
  });
});

describe('the launcher\'s own text (widget.launcherText)', () => {
  it('shows the shop\'s text before the balance, cut short at 320 px, to members and guests, in any language', async () => {
    await member('hal', 700);
    const text = 'Bean Club: your rewards for every coffee';
    expect((await server.api.patch('/api/v1/project', { widget: { launcherText: text } })).status).toBe(200);
    try {
      await startWidget({ externalId: 'hal' });
      await expect(launcher().locator('bdi').textContent()).resolves.toBe(text);
      await expect(launcher().getAttribute('aria-label')).resolves.toBe(`${text}, 700 points`);
      await expect(launcher().textContent()).resolves.toBe(`${text} 700`);
      await page.screenshot({ path: join(ARTIFACTS, 'widget-48-launcher-en.png') });
      await page.setViewportSize({ width: 320, height: 640 });
      for (const [language, path] of [['en', '/'], ['ar', '/rtl']] as const) {
        await startWidget({ externalId: 'hal', language, path });
        const box = (await launcher().boundingBox())!;
        expect(box.x, language).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, language).toBeLessThanOrEqual(320);
        // Too long for a phone: it ends in an ellipsis, and the button's name still says all of it.
        await expect(launcher().locator('bdi').evaluate((el) => el.scrollWidth > el.clientWidth && getComputedStyle(el).textOverflow === 'ellipsis')).resolves.toBe(true);
        await expect(launcher().getAttribute('aria-label')).resolves.toBe(language === 'en' ? `${text}, 700 points` : `${text}, ${arabic('cost', { n: 700 })}`);
        await expect(launcher().textContent()).resolves.toContain(new Intl.NumberFormat(language).format(700));
        expect(await axeViolations(), `launcher ${language} 320`).toEqual([]);
        await page.screenshot({ path: join(ARTIFACTS, `widget-48-launcher-${language}-320.png`) });
      }
      // A visitor who is not signed in sees it instead of "Open rewards".
      await page.goto(`${shopUrl}/`);
      await page.addScriptTag({ url: `${server.url}/widget.js` });
      await page.evaluate((publicKey) => new Promise<void>((resolve) => {
        (window as unknown as { Punchcard: { init(config: unknown): void } }).Punchcard.init({ publicKey, onReady: resolve });
      }), server.publishableKey);
      await expect(launcher().locator('bdi').textContent()).resolves.toBe(text);
      await launcher().click();
      await dialog().getByTestId('guest').waitFor();
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
      expect((await server.api.patch('/api/v1/project', { widget: { launcherText: null } })).status).toBe(200);
    }
    // Back to the default: the balance alone.
    await startWidget({ externalId: 'hal' });
    await expect(launcher().textContent()).resolves.toBe(' 700');
    await expect(launcher().getAttribute('aria-label')).resolves.toBe('Open rewards, 700 points');
  });
});
