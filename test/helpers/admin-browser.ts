import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

// The admin in a real headless Chromium: one browser per test file, a context per operator, and
// what every page must never do recorded as it happens (uncaught errors, anything the policy
// blocked), with every answer the server gave, so a test can look for secrets in all of it.

export const ARTIFACTS = join(import.meta.dirname, '..', '..', 'test-artifacts');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export const launchChromium = (): Promise<Browser> =>
  chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });

/** A browser tab of one operator, watched. */
export interface AdminTab {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors and policy violations, as they happened. */
  problems: string[];
  /** Every answer from the server (`origin`): method, path, status and body. */
  answers: { method: string; path: string; status: number; body: string }[];
}

/** Opens a tab (a context of its own: its own cookies) at `width` px, watching it. */
export async function openTab(browser: Browser, origin: string, width = 1280): Promise<AdminTab> {
  const context = await browser.newContext({ viewport: { width, height: width < 500 ? 844 : 800 }, locale: 'en-US', acceptDownloads: true });
  const page = await context.newPage();
  const tab: AdminTab = { context, page, problems: [], answers: [] };
  page.on('pageerror', (error) => tab.problems.push(`error: ${error.message}`));
  page.on('console', (message) => {
    if (message.text().startsWith('CSP ')) tab.problems.push(message.text());
  });
  page.on('response', (response) => {
    const url = new URL(response.url());
    if (url.origin !== origin) return;
    void response.text().then((body) => tab.answers.push({ method: response.request().method(), path: url.pathname + url.search, status: response.status(), body }),
      () => undefined); // a download or a redirect has no body to read
  });
  // Every blocked script, style or frame is reported, whatever the policy's reporting settings (frames included).
  await context.addInitScript(() => document.addEventListener('securitypolicyviolation', (event) =>
    console.error(`CSP ${event.violatedDirective} blocked ${event.blockedURI} at ${event.sourceFile}:${event.lineNumber}`)));
  return tab;
}

interface AxeResult { id: string; impact: string | null; nodes: { target: string[] }[] }

/** axe-core's serious and critical violations on the page as it is (run through DevTools: the page's policy lets no script in). */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE);
  const violations = await page.evaluate(async () =>
    (await (window as unknown as { axe: { run(context: unknown): Promise<{ violations: AxeResult[] }> } }).axe.run(document)).violations);
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
}

/** Signs in through the sign-in page (it must be open), with a code when the account asks for one. */
export async function signInThroughPage(page: Page, email: string, password: string, code?: () => string): Promise<void> {
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  if (code) {
    await page.getByLabel('Authentication code').fill(code());
    await page.getByRole('button', { name: 'Sign in' }).click();
  }
  await page.waitForURL((url) => url.pathname !== '/admin/sign-in');
}

/** Two frames, and the tasks queued after each: Preact runs a render's effects (which start each page's requests) after the next frame. */
const effectsRun = (page: Page) => page.evaluate(() => new Promise<void>((resolve) => {
  const frame = (then: () => void) => requestAnimationFrame(() => setTimeout(then));
  frame(() => frame(resolve));
}));

/** Waits until the page has loaded what it shows: no "Loading…", nothing busy, no form at work (its last change's requests begun first). */
export async function settled(page: Page): Promise<void> {
  await effectsRun(page);
  await page.waitForFunction(() => !/Loading…|Working…/.test(document.body.textContent ?? "") && !document.querySelector('[aria-busy="true"]'));
}

/**
 * Opens an admin page by its address and waits for its heading and its data. On a page of the app
 * already, the app moves there itself (as its links do: no reload); `reload` loads it afresh.
 */
export async function visit(page: Page, url: string, heading: string | RegExp, options: { reload?: boolean } = {}): Promise<void> {
  const inApp = !options.reload && new URL(page.url(), url).origin === new URL(url).origin && new URL(page.url(), url).pathname.startsWith('/admin/');
  if (!inApp) await page.goto(url);
  else {
    // The router follows history (popstate), as the app's links do.
    await page.evaluate((to) => {
      history.pushState(null, '', to);
      dispatchEvent(new PopStateEvent('popstate'));
    }, url);
  }
  await page.getByRole('heading', { level: 1, name: heading }).waitFor();
  await settled(page);
}
