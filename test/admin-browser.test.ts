import { createRequire } from 'node:module';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PreviewRequest } from '../admin/src/preview/protocol.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// The admin in a real headless Chromium, for what works without its API (/api/admin comes from
// another part of the server): the sign-in page at desktop and phone widths, axe-clean and with
// labelled fields, under the app's strict policy with no violation; the way to sign-in from a page
// that needs a session; and the widget preview running the real widget.js. Screenshots land in
// test-artifacts/.

const ARTIFACTS = join(import.meta.dirname, '..', 'test-artifacts');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
/** What went wrong in the page: uncaught errors and policy violations (a 401 or 404 from the missing API is not one). */
let problems: string[];

beforeAll(async () => {
  server = await startTestServer();
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(path: string, width = 1280) {
  await context?.close();
  context = await browser.newContext({ viewport: { width, height: width < 500 ? 844 : 800 }, locale: 'en-US' });
  page = await context.newPage();
  problems = [];
  page.on('pageerror', (error) => problems.push(`error: ${error.message}`));
  page.on('console', (message) => {
    if (message.text().startsWith('CSP ')) problems.push(message.text());
  });
  // Every blocked script, style or frame is reported, whatever the policy's reporting settings.
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (event) =>
    console.error(`CSP ${event.violatedDirective} blocked ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`)));
  await page.goto(`${server.url}${path}`);
}

interface AxeResult { id: string; impact: string | null }
/** axe-core's serious and critical violations (run through DevTools: the page's policy lets no script in). */
async function axeViolations(): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = await page.evaluate(async () =>
    (await (window as unknown as { axe: { run(context: unknown): Promise<{ violations: AxeResult[] }> } }).axe.run(document)).violations);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
}

const email = () => page.getByLabel('Email', { exact: true });
const password = () => page.getByLabel('Password', { exact: true });

describe('the admin in Chromium', () => {
  for (const width of [1280, 390]) {
    it(`shows the sign-in page at ${width} px: fields labelled Email and Password, axe-clean, nothing blocked by the policy`, async () => {
      await open('/admin/sign-in', width);
      await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Sign in to Punchcard');
      await email().waitFor();
      await expect(email().getAttribute('type')).resolves.toBe('email');
      await expect(email().getAttribute('autocomplete')).resolves.toBe('username');
      await expect(password().getAttribute('type')).resolves.toBe('password');
      await expect(password().getAttribute('autocomplete')).resolves.toBe('current-password');
      await expect(page.getByRole('button', { name: 'Sign in' }).count()).resolves.toBe(1);
      await expect(page.title()).resolves.toBe('Sign in to Punchcard · Punchcard admin');
      expect(await axeViolations()).toEqual([]);
      // Usable at a phone's width: nothing wider than the screen.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await page.screenshot({ path: join(ARTIFACTS, `admin-sign-in-${width}.png`) });
      expect(problems).toEqual([]);
    });
  }

  it('is used by keyboard alone: Tab reaches Email, Password and Sign in in order, and Enter sends the form', async () => {
    await open('/admin/sign-in');
    await email().waitFor();
    const stops: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Tab');
      stops.push(await page.evaluate(() => document.activeElement?.getAttribute('name') ?? document.activeElement?.textContent ?? null));
    }
    expect(stops).toEqual(['email', 'password', 'Sign in']);
    await email().focus();
    await page.keyboard.type('owner@shop.example');
    await page.keyboard.press('Tab');
    await page.keyboard.type('correct horse battery staple');
    const sent = page.waitForRequest((request) => request.url().endsWith('/api/admin/session') && request.method() === 'POST');
    await page.keyboard.press('Enter');
    const request = await sent;
    expect(request.postDataJSON()).toEqual({ email: 'owner@shop.example', password: 'correct horse battery staple' });
    expect(request.headers()['content-type']).toBe('application/json');
    // Whatever the server answers short of a session (here no API at all), the form says so and stays.
    await page.getByRole('alert').waitFor();
    await expect(email().inputValue()).resolves.toBe('owner@shop.example');
    expect(problems).toEqual([]);
  });

  it('sends a page that needs a session to sign-in, keeping where the operator was', async () => {
    await open('/admin/projects/prj_x/members?search=ana');
    await email().waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/sign-in');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/admin/projects/prj_x/members?search=ana');
    expect(problems).toEqual([]);
  });

  it('says so when an invitation link is not valid', async () => {
    await open('/admin/invite/not-a-token');
    await page.getByRole('alert').getByText('This invitation link is not valid').waitFor();
    expect(await axeViolations()).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('previews the real widget, with the look and the item the admin page sends, under the preview\'s own policy', async () => {
    await open('/admin/preview');
    await page.waitForFunction(() => 'Punchcard' in window);
    const request: PreviewRequest = {
      type: 'punchcard-preview', projectName: 'Coffee Corner', language: 'fr', panel: 'rewards', open: true,
      look: {
        theme: { primaryColor: '#b91c1c', backgroundColor: '#ffffff', textColor: '#111827', borderRadius: 4, fontFamily: null },
        position: 'left', displayMode: 'floating', languages: ['en', 'fr'], defaultLanguage: 'en', programName: 'Club café', launcherText: null,
      },
      answers: { '/rewards': { rewards: [{ id: 'rwd_preview', name: 'Café offert', description: null, imageUrl: null, type: 'PHYSICAL', pointsCost: 100, stockRemaining: null, userClaims: 0, maxClaimsPerUser: null, minLevel: 0, levelRequired: false, canClaim: true, affordableIn: 0 }] } },
      sample: { name: 'Alex', level: 'Argent', nextLevel: 'Or' },
    };
    // The admin page posts from the parent; opened on its own, the preview is its own parent.
    await page.evaluate((message) => window.postMessage(message, location.origin), request);
    const widget = page.locator('[data-punchcard]');
    // The section asked for is opened, in the language asked for (its words come from the server's strings file).
    await widget.getByText('Café offert').waitFor();
    await widget.getByRole('button', { name: 'Obtenir' }).waitFor();
    const look = await widget.evaluate((host) => {
      const root = host.shadowRoot!.querySelector<HTMLElement>('.root')!;
      return { primary: root.style.getPropertyValue('--pc-primary'), language: root.lang, launcher: host.shadowRoot!.querySelector('.launcher')?.className };
    });
    expect(look).toEqual({ primary: '#b91c1c', language: 'fr', launcher: 'launcher left' });
    await page.screenshot({ path: join(ARTIFACTS, 'admin-preview.png') });
    expect(problems).toEqual([]);
  });
});
