import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// /docs in a real headless Chromium (Debian's /usr/bin/chromium): Redoc, served by this server,
// renders the OpenAPI document into the API's operations; the guides are linked beside it.

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let server: TestServer;
let profileDir: string;
let browser: BrowserContext;

beforeAll(async () => {
  server = await startTestServer();
  profileDir = mkdtempSync(join(tmpdir(), 'punchcard-chromium-'));
  browser = await chromium.launchPersistentContext(profileDir, { executablePath: '/usr/bin/chromium', headless: true, args: CHROMIUM_ARGS });
});
afterAll(async () => {
  await browser.close();
  rmSync(profileDir, { recursive: true, force: true });
  await server.stop();
});

describe('GET /docs', () => {
  it('serves the renderer from this server, not a CDN', async () => {
    const page = await request(server.url, 'GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script src="/docs/assets/redoc.standalone.js"></script>');
    expect(page.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)[^"]*\.js/);
    const script = await request(server.url, 'GET', '/docs/assets/redoc.standalone.js');
    expect(script.status).toBe(200);
    expect(script.headers['content-type']).toMatch(/^text\/javascript/);
  });

  it('shows the API\'s operations, with this server\'s URL, and links to the guides that open', async () => {
    const page = browser.pages()[0] ?? await browser.newPage();
    const errors: string[] = [];
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      if (!/^(data|blob):/.test(request.url()) && !request.url().startsWith(server.url)) elsewhere.push(request.url());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${server.url}/docs`);
    // Redoc heads each operation with its summary, "METHOD path".
    const headings = async () => (await page.getByRole('heading').allInnerTexts()).map((text) => text.trim());
    await expect.poll(headings, { timeout: 60_000 }).toContain('POST /api/v1/members/{externalId}/points');
    expect(await headings()).toEqual(expect.arrayContaining(['GET /api/v1/members/{externalId}', 'POST /api/widget/init', 'GET /api/v1/leaderboard']));
    expect(await page.content()).toContain(server.url);
    await page.getByRole('link', { name: 'webhooks', exact: true }).click();
    await page.waitForURL(`${server.url}/docs/webhooks`);
    expect(await page.locator('h1').first().textContent()).toMatch(/webhook/i);
    // Nothing from another origin (Redoc's footer logo lived on its CDN; it is served without it),
    // and no error: the pages link their icon (/favicon.svg), so no request for /favicon.ico, and no 404.
    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
  }, 90_000);
});
