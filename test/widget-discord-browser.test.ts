import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { configureCommunity } from './helpers/community.ts';
import { startFakeDiscord } from './helpers/fake-discord.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { widgetHeader } from './helpers/widget.ts';

// Issue 27's "link your Discord" in Chromium: the Discord section shows only when the project set
// up linking, its link opens Discord's consent page in a new tab, and once the member has linked
// there the section says as whom. Discord (its consent page, token endpoint and /users/@me) is
// faked on 127.0.0.1.

const AXE = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const CLIENT = { id: '555000111', secret: 'oauth-client-secret' };

let server: TestServer;
let discord: Awaited<ReturnType<typeof startFakeDiscord>>;
/** Discord's consent page: the member agrees at once, and it sends them back with the code of ada's account. */
let consent: Server;
let consentUrl: string;
let shop: Server;
let shopUrl: string;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  discord = await startFakeDiscord(CLIENT);
  discord.users.push({ code: 'code-ada', id: '100000000000000001', username: 'ada_d' });
  consent = createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://discord').searchParams;
    const back = new URL(query.get('redirect_uri')!);
    back.search = new URLSearchParams({ code: 'code-ada', state: query.get('state')! }).toString();
    response.writeHead(302, { location: back.href }).end();
  });
  await new Promise<void>((resolve) => consent.listen(0, '127.0.0.1', resolve));
  consentUrl = `http://127.0.0.1:${(consent.address() as AddressInfo).port}/oauth2/authorize`;
  process.env.PUNCHCARD_DISCORD_API_URL = discord.apiUrl;
  process.env.PUNCHCARD_DISCORD_AUTHORIZE_URL = consentUrl;
  server = await startTestServer();
  for (const externalId of ['ada', 'bo']) expect((await server.api.post('/api/v1/members', { externalId })).status).toBe(201);
  shop = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title></head><body><h1>Shop</h1></body></html>');
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  shopUrl = `http://127.0.0.1:${(shop.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
  page = await browser.newPage({ viewport: { width: 1280, height: 800 }, locale: 'en-US', reducedMotion: 'reduce' });
  page.setDefaultTimeout(10_000);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  for (const http of [shop, consent]) {
    http?.closeAllConnections();
    await new Promise((resolve) => http?.close(resolve));
  }
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server?.stop();
  await discord?.close();
});

/** Loads the shop's page and the widget for a member, signed as the shop's server would, and opens its home. */
async function openWidget(externalId: string) {
  await page.goto(shopUrl);
  await page.addScriptTag({ url: `${server.url}/widget.js` });
  await page.addScriptTag({ path: AXE });
  const header = widgetHeader({ publicKey: server.publishableKey, widgetSecret: server.widgetSecret }, externalId, server.clock.now().getTime());
  const claims = JSON.parse(Buffer.from(header, 'base64').toString()) as Record<string, unknown>;
  const outcome = await page.evaluate((settings) => new Promise<string>((resolve) => {
    (window as unknown as { Punchcard: { init(config: unknown): void } }).Punchcard.init({
      ...settings, onReady: () => resolve('ready'), onError: (error: Error) => resolve(error.message),
    });
  }), { ...claims, publicKey: server.publishableKey, language: 'en' });
  expect(outcome).toBe('ready');
  await page.locator('[data-punchcard] .launcher').click();
  // History answers with the other sections: once it is there, every section that will show is.
  await nav().getByRole('button', { name: 'History' }).waitFor();
}

const dialog = () => page.getByRole('dialog');
const nav = () => dialog().getByRole('navigation');
const discordTile = () => nav().getByRole('button', { name: 'Discord', exact: true });

interface AxeResult { id: string; impact: string | null; nodes: { target: unknown[] }[] }
/** axe-core's serious and critical violations, as the other browser tests count them: a run that missed the widget's shadow root fails. */
async function axeViolations() {
  const { violations, widgetNodes } = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(context: unknown): Promise<{ violations: AxeResult[]; passes: AxeResult[] }> } }).axe;
    const result = await axe.run(document);
    return { violations: result.violations, widgetNodes: result.passes.flatMap((rule) => rule.nodes).filter((node) => Array.isArray(node.target[0])).length };
  });
  expect(widgetNodes).toBeGreaterThan(0);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
}

describe('the Discord section (issue 27)', () => {
  it('is absent while the project has no guild set up', async () => {
    await openWidget('ada');
    await expect(discordTile().count()).resolves.toBe(0);
    await expect(dialog().textContent()).resolves.not.toContain('Discord');
  });

  it('links the member: the button starts linking in a new tab, on to Discord, and back in the shop the section says as whom', async () => {
    await configureCommunity(server, { oauthClientId: CLIENT.id, oauthClientSecret: CLIENT.secret });
    await openWidget('ada');
    await discordTile().click();
    await dialog().getByRole('heading', { name: 'Discord' }).waitFor();
    await dialog().getByText('Earn points for your activity in our Discord.').waitFor();
    // A form posted to the server's start (which names the shop's page as its Origin), in a new tab.
    const link = dialog().getByRole('button', { name: 'Link your Discord' });
    const form = dialog().locator('form');
    const action = new URL((await form.getAttribute('action'))!);
    expect(action.origin + action.pathname).toBe(`${server.url}/api/community/auth/start`);
    await expect(form.getAttribute('method')).resolves.toBe('post');
    await expect(form.getAttribute('target')).resolves.toBe('_blank');
    await expect(form.getAttribute('rel')).resolves.toBe('noopener');
    expect(await axeViolations()).toEqual([]);

    // The new tab goes through Discord's consent (with the client and the callback) and lands on the server's "linked" page.
    const consented: URL[] = [];
    page.context().on('request', (request) => {
      if (request.url().startsWith(consentUrl)) consented.push(new URL(request.url()));
    });
    const [tab] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await tab.waitForURL(`${server.url}/api/community/auth/linked`);
    expect(consented.map((url) => Object.fromEntries(url.searchParams))).toEqual([expect.objectContaining({
      response_type: 'code', client_id: CLIENT.id, scope: 'identify', redirect_uri: `${server.url}/api/community/auth/callback`,
    })]);
    await expect(tab.textContent('body')).resolves.toContain('Discord account is linked');
    // No window.opener for Discord's page: rel=noopener.
    await expect(tab.evaluate(() => window.opener)).resolves.toBeNull();
    await tab.close();
    expect(discord.tokenRequests).toHaveLength(1);

    // The shop's tab gets focus back (as it does when the member returns to it) and reloads the section.
    await page.evaluate(() => window.dispatchEvent(new Event('focus')));
    await dialog().getByRole('status').filter({ hasText: 'Linked as ada_d' }).waitFor();
    await expect(dialog().getByRole('button', { name: 'Link your Discord' }).count()).resolves.toBe(0);
    expect(await axeViolations()).toEqual([]);
    expect((await server.api.get('/api/v1/members/ada')).body.points).toBe(100);
  });

  it('shows the linked account at once on a later visit, and the link to another member; axe-clean on a phone', async () => {
    await openWidget('ada');
    await discordTile().click();
    await dialog().getByText('Linked as ada_d').waitFor();
    await page.setViewportSize({ width: 320, height: 640 });
    try {
      await openWidget('bo');
      await discordTile().click();
      const link = dialog().getByRole('button', { name: 'Link your Discord' });
      await link.waitFor();
      const box = (await link.boundingBox())!;
      expect(box.x >= 0 && box.x + box.width <= 320).toBe(true);
      expect(await axeViolations()).toEqual([]);
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });
});
