import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import * as OTPAuth from 'otpauth';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PreviewRequest } from '../admin/src/preview/protocol.ts';
import { ADMIN_PASSWORD, makeOperator } from './helpers/admin.ts';
import { ARTIFACTS, axeViolations, launchChromium, openTab, settled, signInThroughPage, visit, type AdminTab } from './helpers/admin-browser.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

// Signing in and staying signed in, in a real headless Chromium against the real server: the
// sign-in page (axe-clean at desktop and phone widths, by keyboard alone), its limits said in
// words, a correct password never refused for someone else's failures, sessions that expire (the
// server's clock is a TestClock: "13 hours later" is clock.advance()) and are revoked, the second
// factor with a real authenticator's code, a change refused from another origin, and the widget
// preview running the real widget.js. Screenshots land in test-artifacts/.

const HOUR = 3_600_000;

let server: TestServer;
let browser: Browser;
/** A visitor who is not signed in. */
let visitor: AdminTab;
/** A page of another origin (another port of 127.0.0.1: the same site, so SameSite lets the cookie go): a cross-site request forger. */
let evil: Server;
let evilUrl: string;

beforeAll(async () => {
  // The real time, so the browser's clock and the server's agree until a test moves the server's.
  server = await startTestServer({ clock: new TestClock(new Date()) });
  const target = `${server.url}/api/admin/projects/${server.projectId}/members/alice/points`;
  evil = createServer((request, response) => response.writeHead(200, { 'content-type': 'text/html' }).end(request.url === '/form'
    ? `<!doctype html><title>Win a prize</title><form method="post" action="${target}" enctype="text/plain">
      <input name='{"amount":1000,"reason":"forged","x":"' value='"}'></form><script>document.forms[0].submit()</script>`
    // A simple request (no preflight): the browser sends it with the operator's cookie and this page's Origin.
    : `<!doctype html><title>Win a prize</title><script>fetch(${JSON.stringify(target)}, { method: 'POST', mode: 'no-cors', credentials: 'include',
      headers: { 'content-type': 'text/plain' }, body: '{"amount":1000,"reason":"forged"}' })</script>`));
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
  evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
  expect((await server.api.post('/api/v1/members', { externalId: 'alice', name: 'Alice' })).status).toBe(201);
  browser = await launchChromium();
  visitor = await openTab(browser, server.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  evil?.closeAllConnections();
  await new Promise((resolve) => evil?.close(resolve));
  await server?.stop();
});

const email = (tab: AdminTab) => tab.page.getByLabel('Email', { exact: true });
const password = (tab: AdminTab) => tab.page.getByLabel('Password', { exact: true });

/** A new browser (context) signed in as `address` through the sign-in page. */
async function signedIn(address: string, code?: () => string): Promise<AdminTab> {
  const tab = await openTab(browser, server.url);
  await tab.page.goto(`${server.url}/admin/sign-in`);
  await signInThroughPage(tab.page, address, ADMIN_PASSWORD, code);
  await tab.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return tab;
}

describe('the sign-in page', () => {
  for (const width of [1280, 390]) {
    it(`at ${width} px: fields labelled Email and Password, axe-clean, nothing blocked by the policy`, async () => {
      await visitor.page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
      await visitor.page.goto(`${server.url}/admin/sign-in`);
      await expect(visitor.page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Sign in to Punchcard');
      await email(visitor).waitFor();
      await expect(email(visitor).getAttribute('type')).resolves.toBe('email');
      await expect(email(visitor).getAttribute('autocomplete')).resolves.toBe('username');
      await expect(password(visitor).getAttribute('type')).resolves.toBe('password');
      await expect(password(visitor).getAttribute('autocomplete')).resolves.toBe('current-password');
      await expect(visitor.page.title()).resolves.toBe('Sign in to Punchcard · Punchcard admin');
      expect(await axeViolations(visitor.page)).toEqual([]);
      // Usable at a phone's width: nothing wider than the screen.
      expect(await visitor.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
      await visitor.page.screenshot({ path: join(ARTIFACTS, `admin-sign-in-${width}.png`) });
      expect(visitor.problems).toEqual([]);
    });
  }

  it('is used by keyboard alone: Tab reaches Email, Password and Sign in in order, and Enter sends the form', async () => {
    const { page } = visitor;
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${server.url}/admin/sign-in`);
    await email(visitor).waitFor();
    const stops: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      await page.keyboard.press('Tab');
      stops.push(await page.evaluate(() => document.activeElement?.getAttribute('name') ?? document.activeElement?.textContent ?? null));
    }
    expect(stops).toEqual(['email', 'password', 'Sign in']);
    await email(visitor).focus();
    await page.keyboard.type('nobody@shop.example');
    await page.keyboard.press('Tab');
    await page.keyboard.type('correct horse battery staple');
    const sent = page.waitForRequest((request) => request.url().endsWith('/api/admin/session') && request.method() === 'POST');
    await page.keyboard.press('Enter');
    expect((await sent).postDataJSON()).toEqual({ email: 'nobody@shop.example', password: 'correct horse battery staple' });
    // The same words whether or not the email exists, and the form stays as it was.
    await page.getByRole('alert').getByText('Wrong email or password.').waitFor();
    await expect(email(visitor).inputValue()).resolves.toBe('nobody@shop.example');
  });

  it('says in words when to try again once an account is locked, and never refuses the right password from a browser that signed in before', async () => {
    await makeOperator(server, 'lee@shop.example', 'staff');
    const lee = await signedIn('lee@shop.example');
    const { page } = visitor;
    await page.goto(`${server.url}/admin/sign-in`);
    for (let attempt = 1; attempt <= 6; attempt++) {
      await email(visitor).fill('lee@shop.example');
      await password(visitor).fill(`guess number ${attempt}`);
      const answered = page.waitForResponse((response) => response.url().endsWith('/api/admin/session') && response.request().method() === 'POST');
      await page.getByRole('button', { name: 'Sign in' }).click();
      expect((await answered).status()).toBe(attempt <= 5 ? 401 : 429);
    }
    await page.getByRole('alert').getByText('Too many attempts: try again in 1 minute.').waitFor();
    await page.screenshot({ path: join(ARTIFACTS, 'admin-sign-in-429.png') });
    // Lee's own browser holds a device cookie for the account: the lockout does not stop them.
    await lee.page.getByRole('button', { name: 'Sign out' }).click();
    await signInThroughPage(lee.page, 'lee@shop.example', ADMIN_PASSWORD);
    await lee.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    // A minute later (the server's clock), the lock is over for everyone.
    server.clock.advance(61_000);
    await password(visitor).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await email(visitor).waitFor();
    await lee.context.close();
  });

  it('says so when an invitation link is not valid', async () => {
    await visitor.page.goto(`${server.url}/admin/invite/not-a-token`);
    await visitor.page.getByRole('alert').getByText('This invitation link is not valid').waitFor();
    expect(await axeViolations(visitor.page)).toEqual([]);
  });
});

describe('sessions', { timeout: 60_000 }, () => {
  it('sends a page that needs a session to sign-in, and back where the operator was afterwards', async () => {
    await makeOperator(server, 'max@shop.example', 'owner');
    const { page } = visitor;
    const where = `/admin/projects/${server.projectId}/members?search=ali`;
    await page.goto(`${server.url}${where}`);
    await email(visitor).waitFor();
    expect(new URL(page.url()).pathname).toBe('/admin/sign-in');
    expect(new URL(page.url()).searchParams.get('next')).toBe(where);
    await signInThroughPage(page, 'max@shop.example', ADMIN_PASSWORD);
    await page.waitForURL(`${server.url}${where}`);
    await settled(page);
    await expect(page.getByLabel('Search by id, email or name').inputValue()).resolves.toBe('ali');
    await expect(page.getByRole('table', { name: 'Members' }).getByRole('link', { name: 'alice' }).count()).resolves.toBe(1);
  });

  it('ends after 12 hours idle: the next thing the operator does takes them to sign in, and back to the same page', async () => {
    const { page } = visitor;
    await visit(page, `${server.url}/admin/projects/${server.projectId}/audit`, 'Audit log');
    server.clock.advance(13 * HOUR);
    await page.getByLabel('Action').fill('POST');
    await page.getByRole('button', { name: 'Apply' }).click();
    await email(visitor).waitFor();
    const next = new URL(page.url()).searchParams.get('next');
    expect(next).toBe(`/admin/projects/${server.projectId}/audit?action=POST`);
    await signInThroughPage(page, 'max@shop.example', ADMIN_PASSWORD);
    await page.waitForURL(`${server.url}${next}`);
    await settled(page);
    await expect(page.getByLabel('Action').inputValue()).resolves.toBe('POST');
  });

  it('is listed with the operator\'s others, and ended from another browser: that browser is sent to sign in', async () => {
    const other = await signedIn('max@shop.example');
    const { page } = visitor;
    await visit(page, `${server.url}/admin/projects/${server.projectId}/settings/account`, 'Settings: My account');
    const sessions = page.getByRole('table', { name: 'Your sessions' });
    await expect(sessions.locator('tbody tr').count()).resolves.toBe(2);
    await sessions.getByRole('button', { name: /^Sign out the session from / }).click();
    await expect.poll(() => sessions.locator('tbody tr').count()).toBe(1);
    await expect(sessions.locator('tbody tr').textContent()).resolves.toContain('(this one)');
    await other.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Members' }).click();
    await other.page.getByRole('heading', { level: 1, name: 'Sign in to Punchcard' }).waitFor();
    expect(new URL(other.page.url()).searchParams.get('next')).toBe(`/admin/projects/${server.projectId}/members`);
    expect(other.problems).toEqual([]);
    await other.context.close();
  });

  it('refuses a change sent from another origin with the operator\'s cookie: 403, and nothing changes', async () => {
    const { page } = visitor;
    const before = (await server.api.get('/api/v1/members/alice')).body.points;
    const refusal = `A change to the admin must come from its own pages (${server.url}), not from ${evilUrl.slice(0, -1)}.`;
    // A script's request (no preflight, so the browser sends it; the page may not read the answer)...
    const fetched = page.waitForResponse((response) => response.url().endsWith('/members/alice/points'));
    await page.goto(`${evilUrl}fetch`);
    expect((await fetched).status()).toBe(403);
    // ...and a form the page submits itself: the browser shows the server's answer.
    await page.goto(`${evilUrl}form`);
    await page.waitForURL(/\/members\/alice\/points$/);
    expect(JSON.parse((await page.locator('body').textContent())!)).toEqual({ error: 'Forbidden', message: refusal });
    expect((await server.api.get('/api/v1/members/alice')).body.points).toBe(before);
  });
});

describe('the second factor', { timeout: 60_000 }, () => {
  it('is turned on with a real authenticator\'s code, and then asked for at sign-in', async () => {
    const { page } = visitor;
    // The owner makes the project ask its owners for it: until they turn it on, every page says so and they can change nothing.
    await visit(page, `${server.url}/admin/projects/${server.projectId}/settings/project`, 'Settings: Project');
    await page.getByLabel('Owners must use two-step sign-in').check();
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').getByText('Saved.').waitFor();
    await visit(page, `${server.url}/admin/projects/${server.projectId}/overview`, 'Overview', { reload: true });
    await page.getByRole('alert').getByText('This project asks its owners for two-step sign-in').waitFor();
    await page.getByRole('alert').getByText(/This project requires its owners to sign in with a second factor/).waitFor();
    await page.getByRole('link', { name: 'Turn it on in My account' }).click();
    await page.getByRole('heading', { level: 1, name: 'Settings: My account' }).waitFor();
    await page.getByRole('button', { name: 'Set up an authenticator app' }).click();
    const uri = await page.locator('.copy-block code').textContent();
    // What an authenticator app does with the address: the code of the moment (the server's clock).
    const totp = OTPAuth.URI.parse(uri!) as OTPAuth.TOTP;
    expect(totp).toMatchObject({ issuer: 'Punchcard', digits: 6, period: 30 });
    const code = () => totp.generate({ timestamp: server.clock.now().getTime() });
    await page.getByLabel('Code from the app').fill(code() === '000000' ? '111111' : '000000');
    await page.getByRole('button', { name: 'Turn on' }).click();
    // The server's words, beside the field.
    await page.getByText('"code" is not a current code of your authenticator app; check the phone\'s clock and try the newest code.').waitFor();
    await expect(page.getByLabel('Code from the app').getAttribute('aria-invalid')).resolves.toBe('true');
    await page.getByLabel('Code from the app').fill(code());
    await page.getByRole('button', { name: 'Turn on' }).click();
    await page.getByRole('status').getByText('Two-step sign-in is on.').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await visit(page, `${server.url}/admin/projects/${server.projectId}/overview`, 'Overview');
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await email(visitor).fill('max@shop.example');
    await password(visitor).fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Enter the 6-digit code of your authenticator app.').waitFor();
    await expect(page.getByLabel('Authentication code').evaluate((input) => input === document.activeElement)).resolves.toBe(true);
    // Each code signs in once: the one that turned it on is spent, the next one works.
    server.clock.advance(30_000);
    await page.getByLabel('Authentication code').fill(code());
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    expect(visitor.problems).toEqual([]);
  });
});

describe('the widget preview', () => {
  it('runs the real widget, with the look and the item the admin page sends, under the preview\'s own policy', async () => {
    const { page } = visitor;
    await page.goto(`${server.url}/admin/preview`);
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
    // Closed, with the shop's launcher text: the launcher as shoppers see it.
    await page.evaluate((message) => window.postMessage(message, location.origin), { ...request, open: false, look: { ...request.look, launcherText: 'Club café' } });
    await expect.poll(() => widget.locator('.launcher').textContent()).toBe('Club café 320');
    await page.screenshot({ path: join(ARTIFACTS, 'admin-preview.png') });
    expect(visitor.problems).toEqual([]);
  });
});
