import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Download, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { ADMIN_PASSWORD, makeOperator, projectPath } from './helpers/admin.ts';
import { ARTIFACTS, axeViolations, launchChromium, openTab, settled, signInThroughPage, visit, type AdminTab } from './helpers/admin-browser.ts';
import { punchcard } from './helpers/cli.ts';
import { startTestServer, TestClock, type TestServer } from './helpers/server.ts';

// The admin used for real, in Chromium, against the real server and its SQLite file: an owner's
// first day (invited from the CLI, through to the audit log), what staff and viewers can and cannot
// do, every page axe-clean at desktop and phone widths with real data, no secret in anything the
// admin loads, and members paged past the 10,000 a page may reach. Screenshots land in test-artifacts/.

let server: TestServer;
let browser: Browser;
let owner: AdminTab;
/** Every operator's tab this file opens: the secrets check reads all they were sent. */
const tabs: AdminTab[] = [];
const at = (rest: string) => `${server.url}/admin/projects/${server.projectId}/${rest}`;
const api = (rest: string) => projectPath(server.projectId, rest);
/** Secrets the server made while the admin was open: none may reach a page but the one that created it. */
const secrets: { value: string; shownBy?: string }[] = [];
const rewards: Record<string, string> = {};
const claims: Record<string, string> = {};

async function create(kind: string, body: Record<string, unknown>): Promise<string> {
  const res = await server.api.post(`/api/v1/${kind}`, body);
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

async function redeem(reward: string, externalId: string): Promise<string> {
  const res = await server.api.post(`/api/v1/rewards/${rewards[reward]}/redeem`, { externalId });
  expect(res.status, res.text).toBe(200);
  return res.body.claim.id as string;
}

const DAY = 86_400_000;

/** A shop with a few weeks of a programme: members, points, a catalog of every kind and claims waiting. */
async function seedShop() {
  const people = [['alice', 'Alice Martin', 900], ['bob', 'Bob Chen', 400], ['carol', 'Carol Diaz', 1600], ['dan', 'Dan Okafor', 120], ['eve', 'Eve Berg', 60]] as const;
  // Two weeks of it: a member joins every other day and earns twice, so the Overview's days differ.
  server.clock.advance(-14 * DAY);
  for (const [externalId, name, points] of people) {
    expect((await server.api.post('/api/v1/members', { externalId, name, email: `${externalId}@example.com` })).status).toBe(201);
    expect((await server.api.post(`/api/v1/members/${externalId}/points`, { amount: points - 50, description: 'Order' })).status).toBe(200);
    server.clock.advance(DAY);
    expect((await server.api.post(`/api/v1/members/${externalId}/points`, { amount: 50, description: 'Review' })).status).toBe(200);
    server.clock.advance(DAY);
  }
  server.clock.current = new Date();
  rewards.tote = await create('rewards', { name: 'Tote bag', type: 'PHYSICAL', pointsCost: 300 });
  rewards.tree = await create('rewards', { name: 'Plant a tree', type: 'CUSTOM', pointsCost: 100 });
  rewards.trip = await create('rewards', { name: 'Weekend trip', type: 'RAFFLE', pointsCost: 20 });
  rewards.coupon = await create('rewards', { name: '5 off', type: 'COUPON', pointsCost: 50, discountConfig: { type: 'FIXED_CART', value: 5 } });
  const badge = await create('badges', { name: 'Early bird', rarity: 'RARE' });
  await create('quests', { name: 'Write a review', completionMode: 'MANUAL', points: 50, badgeId: badge });
  await create('levels', { level: 1, name: 'Silver', minTotalPointsEarned: 500 });
  await create('games', { name: 'Lucky wheel', type: 'SPIN_WHEEL', pointsCost: 10, showOdds: false, prizes: [{ name: 'Fifty', value: 50, weight: 1 }, { name: 'Nothing', value: 0, weight: 3 }] });
  await create('promo-codes', { code: 'WELCOME10', rewardType: 'POINTS', points: 10 });
  const now = server.clock.now().getTime();
  await create('multipliers', { name: 'Double weekend', multiplier: 2, startsAt: new Date(now + 86_400_000).toISOString(), endsAt: new Date(now + 3 * 86_400_000).toISOString() });
  claims.tree = await redeem('tree', 'bob');
  claims.tote = await redeem('tote', 'carol');
  await redeem('trip', 'dan');
  await redeem('coupon', 'alice');
  const hook = await server.api.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/punchcard', events: ['points.awarded'] });
  expect(hook.status, hook.text).toBe(201);
  secrets.push({ value: hook.body.secret });
}

beforeAll(async () => {
  // The real time, so the browser's clock and the server's agree until a test moves the server's.
  server = await startTestServer({ clock: new TestClock(new Date()) });
  secrets.push({ value: server.secretKey }, { value: server.widgetSecret });
  await seedShop();
  mkdirSync(ARTIFACTS, { recursive: true });
  browser = await launchChromium();
  owner = await openTab(browser, server.url);
  tabs.push(owner);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server?.stop();
});

const status = (page: Page) => page.getByRole('status').filter({ hasText: /\S/ });
const readDownload = async (download: Download) => readFileSync((await download.path())!, 'utf8');
const download = async (page: Page, click: () => Promise<void>) => {
  const [file] = await Promise.all([page.waitForEvent('download'), click()]);
  return { name: file.suggestedFilename(), text: await readDownload(file) };
};

describe("an owner's first day", { timeout: 60_000 }, () => {
  it('is invited from the CLI, chooses a password through the link, and lands on the Overview', async () => {
    const invited = punchcard(['--db', server.dbPath, 'admin', 'invite', 'olivia@shop.example', '--role', 'owner', '--public-url', server.url, '--json']);
    expect(invited.status, invited.stderr).toBe(0);
    const { link } = JSON.parse(invited.stdout) as { link: string };
    secrets.push({ value: link.split('/').at(-1)! });
    const { page } = owner;
    await page.goto(link);
    await page.getByText('You are invited as olivia@shop.example to Default, as Owner.').waitFor();
    await page.getByLabel('Your name').fill('Olivia');
    await page.getByLabel('Password', { exact: true }).fill('too short');
    await page.getByLabel('Repeat the password').fill('too short');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    // Said beside the field, before any round trip.
    await expect(page.getByLabel('Password', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    await page.getByText('The password must be at least 12 characters long.').waitFor();
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByLabel('Repeat the password').fill(ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.waitForURL(at('overview'));
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link').allTextContents()).resolves
      .toEqual(['Overview', 'Members', 'Catalog', 'Claims', 'Widget', 'Settings', 'Audit log']);
    const [session] = (await owner.context.cookies()).filter((cookie) => cookie.name === 'punchcard_admin');
    expect(session).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/' });
    secrets.push({ value: session!.value });
  });

  it('signs out, and signs in again with email and password', async () => {
    const { page } = owner;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { level: 1, name: 'Sign in to Punchcard' }).waitFor();
    await signInThroughPage(page, 'olivia@shop.example', ADMIN_PASSWORD);
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
    const [session] = (await owner.context.cookies()).filter((cookie) => cookie.name === 'punchcard_admin');
    secrets.push({ value: session!.value });
  });

  it('reads the Overview: the figures of the API, drawn by uPlot, in tables and as CSV, under the strict policy', async () => {
    const { page } = owner;
    await visit(page, at('overview?range=30'), 'Overview');
    const figures = await page.evaluate(async (path) => (await fetch(path)).json(), api('overview?range=30')) as {
      from: string; to: string; totals: { pointsIssued: number; pointsRedeemed: number; members: number };
      days: { date: string; issued: number; redeemed: number; expired: number; newMembers: number; activeMembers: number; outstanding: number }[];
    };
    expect(figures.totals).toMatchObject({ members: 5, pointsIssued: 3080, pointsRedeemed: 470 });
    const stat = (name: string) => page.locator('.stat', { has: page.getByText(name, { exact: true }) }).locator('dd').textContent();
    await expect(stat('Points issued')).resolves.toBe('3,080');
    await expect(stat('Points redeemed')).resolves.toBe('470');
    await expect(stat('Redemption rate')).resolves.toBe('15.3%');
    // Three charts drawn on their canvases (pixels painted), each named for screen readers.
    const charts = page.locator('.chart');
    await expect(charts.count()).resolves.toBe(3);
    const painted = await page.locator('.plot canvas').evaluateAll((canvases) => canvases.map((canvas) => {
      const c = canvas as HTMLCanvasElement;
      const pixels = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
      let ink = 0;
      for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) ink++;
      return c.width > 100 && ink > 500;
    }));
    expect(painted).toEqual([true, true, true]);
    await expect(page.getByRole('img', { name: /^Chart: Points per day, / }).count()).resolves.toBe(1);
    // The same figures in the chart's table and its CSV.
    const points = charts.filter({ has: page.getByRole('heading', { name: 'Points per day' }) });
    await points.getByText('Show the figures as a table').click();
    await points.getByRole('table').locator('tbody tr').nth(29).waitFor();
    const rows = await points.getByRole('table').locator('tbody tr').evaluateAll((trs) => trs.map((tr) => Array.from(tr.children, (cell) => cell.textContent)));
    expect(rows).toHaveLength(30);
    const format = (n: number) => n.toLocaleString('en');
    expect(rows.map((row) => row.slice(1))).toEqual(figures.days.map((day) => [format(day.issued), format(day.redeemed), format(day.expired)]));
    const csv = await download(page, () => points.getByRole('button', { name: 'Download CSV: Points per day' }).click());
    expect(csv.name).toBe('points-per-day.csv');
    expect(csv.text.trim().split('\n')).toEqual(['Day,Points issued,Points redeemed,Points expired',
      ...figures.days.map((day) => `${day.date},${day.issued},${day.redeemed},${day.expired}`)]);
    // The points-accounting table is the points report's, and its CSV the server's.
    const report = await page.evaluate(async (path) => (await fetch(path)).json(), api(`points-report?from=${figures.from}&to=${figures.to}`)) as
      { days: { outstandingEnd: number; earned: number }[] };
    const accounting = page.getByRole('table', { name: /^Points accounting, / });
    const ends = await accounting.locator('tbody tr td:last-child').allTextContents();
    expect(ends).toEqual(report.days.map((day) => format(day.outstandingEnd)));
    expect(report.days.at(-1)!.outstandingEnd).toBe(figures.days.at(-1)!.outstanding);
    const reportCsv = await download(page, () => page.getByRole('link', { name: 'Download CSV' }).last().click());
    expect(reportCsv.name).toBe('points-report.csv');
    expect(reportCsv.text.trim().split('\n')).toHaveLength(31);
    // Another range: seven days, and the address keeps it.
    await page.getByLabel('Last 7 days').check();
    await page.waitForURL(/range=7/);
    await settled(page);
    await expect(points.getByRole('table').locator('tbody tr').count()).resolves.toBe(7);
    expect(owner.problems).toEqual([]);
    // The watch would have seen it: a style attribute (what a chart library might write) is blocked and reported.
    await page.evaluate(() => document.body.append(Object.assign(document.createElement('div'), { className: 'probe' })));
    await page.locator('.probe').evaluate((probe) => probe.setAttribute('style', 'color: red'));
    await expect.poll(() => owner.problems).toEqual([expect.stringMatching(/^CSP style-src-attr blocked inline/)]);
    owner.problems.length = 0;
  });

  it('finds a member and adjusts their points with a reason: a double click posts once', async () => {
    const { page } = owner;
    await visit(page, at('members'), 'Members');
    await page.getByLabel('Search by id, email or name').fill('ali');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/search=ali/);
    await settled(page);
    const table = page.getByRole('table', { name: 'Members' });
    await expect(table.locator('tbody tr').allTextContents()).resolves.toEqual([expect.stringMatching(/^aliceAlice Martinalice@example\.com850/)]);
    await table.getByRole('link', { name: 'alice' }).click();
    await page.getByRole('heading', { level: 1, name: 'Alice Martin (alice)' }).waitFor();
    await settled(page);
    await expect(page.getByTestId('balance').textContent()).resolves.toBe('850');
    // A reason is required: the server's message, beside the field.
    await page.getByLabel('Points', { exact: true }).fill('50');
    await page.getByRole('button', { name: 'Adjust points' }).click();
    await page.getByText('"reason" must not be empty: say why the points change.').waitFor();
    await expect(page.getByLabel('Reason', { exact: true }).getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(page.getByLabel('Reason', { exact: true }).evaluate((input) => input === document.activeElement)).resolves.toBe(true);
    await page.getByLabel('Reason', { exact: true }).fill('Welcome gift');
    await page.getByRole('button', { name: 'Adjust points' }).dblclick();
    await status(page).getByText('Points adjusted. The balance is now 900.').waitFor();
    await settled(page);
    await expect(page.getByTestId('balance').textContent()).resolves.toBe('900');
    const history = page.getByRole('table', { name: 'History' });
    await expect(history.locator('tbody tr').first().textContent()).resolves.toMatch(/Earned\+50900API and adjustmentsadmin:opr_\w+Welcome gift$/);
    const postings = (await server.api.get('/api/v1/members/alice/points?history=true&limit=100')).body.transactions.filter((t: { description: string }) => t.description === 'Welcome gift');
    expect(postings).toHaveLength(1);
  });

  it('creates a reward: the API\'s message shows beside the field and nothing is saved, then it is made', async () => {
    const { page } = owner;
    const before = (await server.api.get('/api/v1/rewards?limit=100')).body.rewards.length;
    await visit(page, at('catalog/rewards'), 'Catalog');
    await page.getByRole('link', { name: 'New reward' }).click();
    await page.getByRole('heading', { level: 1, name: 'New reward' }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Mug');
    await page.getByLabel('Type', { exact: true }).selectOption('PHYSICAL');
    await page.getByLabel('Points cost').fill('-5');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.getByText('"pointsCost" must be at least 0.').waitFor();
    await expect(page.getByLabel('Points cost').getAttribute('aria-invalid')).resolves.toBe('true');
    expect((await server.api.get('/api/v1/rewards?limit=100')).body.rewards).toHaveLength(before);
    // The live preview shows the reward as typed, in the real widget.
    await page.frameLocator('iframe[title="Widget preview"]').locator('[data-punchcard]').getByText('Mug').waitFor();
    await page.getByLabel('Points cost').fill('20');
    await page.getByRole('button', { name: 'Create' }).click();
    await page.waitForURL(/\/catalog\/rewards\/rwd_\w+$/);
    await page.getByRole('heading', { level: 1, name: 'Mug' }).waitFor();
    const made = (await server.api.get('/api/v1/rewards?limit=100')).body.rewards.find((r: { name: string }) => r.name === 'Mug');
    expect(made).toMatchObject({ type: 'PHYSICAL', pointsCost: 20 });
    expect(page.url()).toBe(at(`catalog/rewards/${made.id}`));
  });

  it('fulfils a claim: the pending list holds custom and physical rewards, a raffle entry waits for its draw', async () => {
    const { page } = owner;
    await visit(page, at('claims'), 'Claims');
    const table = page.getByRole('table', { name: 'Claims' });
    const rows = await table.locator('tbody tr').allTextContents();
    expect(rows).toEqual([
      expect.stringMatching(/danWeekend trip20EnteredWaits for the draw$/),
      expect.stringMatching(/carolTote bag300PendingMark fulfilled$/),
      expect.stringMatching(/bobPlant a tree100PendingMark fulfilled$/),
    ]);
    await table.getByRole('button', { name: 'Mark fulfilled: Plant a tree for bob' }).click();
    await table.getByText('bob').waitFor({ state: 'detached' });
    expect((await server.api.get(`/api/v1/members/bob/claims`)).body.claims.find((c: { id: string }) => c.id === claims.tree)).toMatchObject({ status: 'DELIVERED' });
    await page.getByLabel('Status').selectOption('fulfilled');
    await page.waitForURL(/status=fulfilled/);
    await settled(page);
    const fulfilled = await table.locator('tbody tr').allTextContents();
    expect(fulfilled).toHaveLength(2);
    expect(fulfilled).toEqual(expect.arrayContaining([expect.stringMatching(/alice5 off50Completed/), expect.stringMatching(/bobPlant a tree100Delivered/)]));
  });

  it('reads the audit log: its own changes, the CLI\'s and the API\'s, filtered by day and action, and as CSV', async () => {
    const { page } = owner;
    await visit(page, at('audit'), 'Audit log');
    const table = page.getByRole('table', { name: 'Audit log' });
    const rows = await table.locator('tbody tr').allTextContents();
    expect(rows.slice(0, 4)).toEqual([
      expect.stringMatching(/olivia@shop\.example \(operator\)POST \/claims\/:claimId\/fulfil/),
      expect.stringMatching(/olivia@shop\.example \(operator\)POST \/catalog\/rewardsrwd_\w+\{"after":\{"name":"Mug",.*"type":"PHYSICAL","pointsCost":20,/),
      expect.stringMatching(/olivia@shop\.example \(operator\)POST \/members\/:externalId\/pointsalice\{"after":\{"amount":50,"reason":"Welcome gift"\}\}/),
      expect.stringMatching(/olivia@shop\.example \(operator\)invite accepted/),
    ]);
    expect(rows).toContainEqual(expect.stringMatching(/\(command line\)admin inviteolivia@shop\.example/));
    expect(rows).toContainEqual(expect.stringMatching(/sk_live_\w+ \(API key\)POST \/rewardsrwd_\w+\{"after":\{"name":"Tote bag"/));
    // Filtered by an action's beginning: the API's five members of the last two weeks and today's adjustment.
    await page.getByLabel('Action').fill('POST /members');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/action=/);
    await settled(page);
    const byAction = await table.locator('tbody tr').allTextContents();
    expect(byAction).toEqual([expect.stringMatching(/olivia@shop\.example \(operator\)POST \/members\/:externalId\/pointsalice/),
      ...['eve', 'dan', 'carol', 'bob', 'alice'].map((id) => expect.stringMatching(new RegExp(`\\(API key\\)POST /members${id}\\{`)))]);
    // And by day, in the project's calendar (date fields): today's alone.
    const today = server.clock.now().toISOString().slice(0, 10);
    await page.getByLabel('From').fill(today);
    await page.getByLabel('To').fill(today);
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/to=/);
    await settled(page);
    await expect(table.locator('tbody tr').allTextContents()).resolves.toEqual([expect.stringMatching(/olivia@shop\.example \(operator\).*Welcome gift/)]);
    const csv = await download(page, () => page.getByRole('link', { name: 'Download CSV' }).click());
    expect(csv.name).toBe('audit.csv');
    const lines = csv.text.trim().split('\n');
    expect(lines[0]).toBe('id,at,actor.type,actor.id,actor.label,action,target,summary');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('Welcome gift');
    expect(owner.problems).toEqual([]);
  });
});

/** Opens a tab for a staff member or viewer, signed in through the page. */
async function operatorTab(email: string, role: 'staff' | 'viewer'): Promise<AdminTab> {
  await makeOperator(server, email, role);
  const tab = await openTab(browser, server.url);
  tabs.push(tab);
  await tab.page.goto(`${server.url}/admin/sign-in`);
  await signInThroughPage(tab.page, email, ADMIN_PASSWORD);
  await tab.page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  for (const cookie of await tab.context.cookies()) secrets.push({ value: cookie.value });
  return tab;
}

/** A change the page's own script sends, with the session's CSRF token and the page's Origin: what a button would send, were it shown. */
const sendFromPage = (page: Page, method: string, path: string, body: unknown) => page.evaluate(async ({ method, path, body }) => {
  const { csrfToken } = await (await fetch('/api/admin/session')).json() as { csrfToken: string };
  const res = await fetch(path, { method, headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json() as { message: string } };
}, { method, path, body });

describe('what each role may do, as the pages show it and the server holds it', { timeout: 60_000 }, () => {
  let staff: AdminTab;
  let viewer: AdminTab;
  beforeAll(async () => {
    staff = await operatorTab('sam@shop.example', 'staff');
    viewer = await operatorTab('vic@shop.example', 'viewer');
  });

  it('a viewer reads every page and is offered no change; the server refuses one anyway, naming the role', async () => {
    const { page } = viewer;
    await visit(page, at('members/alice'), 'Alice Martin (alice)');
    await expect(page.getByRole('heading', { name: 'Adjust points' }).count()).resolves.toBe(0);
    await expect(page.getByRole('heading', { name: 'Erase this member' }).count()).resolves.toBe(0);
    await page.getByRole('table', { name: 'History' }).waitFor();
    const refused = await sendFromPage(page, 'POST', api('members/alice/points'), { amount: 5, reason: 'viewer tries' });
    expect(refused).toEqual({ status: 403, body: { error: 'Forbidden', message: expect.stringMatching(/needs the staff role in this project \(or owner\); you are a viewer/) } });
    await visit(page, at('catalog/rewards'), 'Catalog');
    await expect(page.getByRole('link', { name: 'New reward' }).count()).resolves.toBe(0);
    await page.getByRole('link', { name: 'Tote bag' }).click();
    await page.getByRole('heading', { level: 1, name: 'Tote bag' }).waitFor();
    await expect(page.getByLabel('Name', { exact: true }).isDisabled()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: /Save|Archive/ }).count()).resolves.toBe(0);
    await visit(page, at('claims'), 'Claims');
    await expect(page.getByRole('button', { name: /Mark fulfilled|Draw winners/ }).count()).resolves.toBe(0);
    await visit(page, at('widget'), 'Widget');
    await expect(page.getByLabel('Launcher text').isDisabled()).resolves.toBe(true);
    await expect(page.getByRole('button', { name: 'Save look' }).count()).resolves.toBe(0);
    await visit(page, at('settings'), 'Settings: Project');
    await expect(page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link').allTextContents()).resolves
      .toEqual(['Project', 'Webhooks', 'Integrations', 'Operators', 'Backups', 'My account']);
    await expect(page.getByLabel('Project name').isDisabled()).resolves.toBe(true);
    await visit(page, at('settings/operators'), 'Settings: Operators');
    await expect(page.getByRole('heading', { name: 'Invite an operator' }).count()).resolves.toBe(0);
    await visit(page, at('settings/backups'), 'Settings: Backups');
    await expect(page.getByRole('button', { name: 'Take a backup now' }).count()).resolves.toBe(0);
    // The keys page is not in the navigation, and the server lists keys to owners only.
    const keys = await page.evaluate(async (path) => (await fetch(path)).status, api('keys'));
    expect(keys).toBe(403);
    expect(viewer.problems).toEqual([]);
  });

  it('staff adjust points, fulfil claims, edit the catalog and the widget\'s look (its launcher text too), and nothing of the owner\'s', async () => {
    const { page } = staff;
    await visit(page, at('members/dan'), 'Dan Okafor (dan)');
    await page.getByLabel('Points', { exact: true }).fill('-20');
    await page.getByLabel('Reason', { exact: true }).fill('Returned an order');
    await page.getByRole('button', { name: 'Adjust points' }).click();
    await status(page).getByText('Points adjusted. The balance is now 80.').waitFor();
    await visit(page, at('claims'), 'Claims');
    await page.getByRole('button', { name: 'Mark fulfilled: Tote bag for carol' }).click();
    await page.getByRole('table', { name: 'Claims' }).getByText('carol').waitFor({ state: 'detached' });
    // A game's odds in the preview follow its showOdds, as the widget API answers them.
    await visit(page, at('catalog/games'), 'Catalog');
    await page.getByRole('link', { name: 'Lucky wheel' }).click();
    await page.getByRole('heading', { level: 1, name: 'Lucky wheel' }).waitFor();
    const prizes = page.frameLocator('iframe[title="Widget preview"]').locator('[data-punchcard]').getByRole('list', { name: 'What you can win' });
    await expect.poll(() => prizes.locator('li').allTextContents()).toEqual(['Fifty', 'Nothing']);
    await page.getByLabel('Show each prize\'s odds to shoppers').check();
    await expect.poll(() => prizes.locator('li').allTextContents()).toEqual(['Fifty · 25% chance', 'Nothing · 75% chance']);
    await visit(page, at('widget'), 'Widget');
    await page.getByLabel('Launcher text').fill('Bean Club');
    // The preview shows the launcher as shoppers will see it, before saving.
    await page.getByLabel('Preview shows').selectOption('launcher');
    const launcher = page.frameLocator('iframe[title="Widget preview"]').locator('[data-punchcard] .launcher');
    await expect.poll(() => launcher.textContent()).toBe('Bean Club 320');
    await page.getByRole('button', { name: 'Save look' }).click();
    await status(page).getByText('Saved. Shoppers see the new look on their next page.').waitFor();
    expect((await server.api.get('/api/v1/project')).body.widget.launcherText).toBe('Bean Club');
    await visit(page, at('settings'), 'Settings: Project');
    await expect(page.getByRole('navigation', { name: 'Settings sections' }).getByRole('link', { name: 'API keys' }).count()).resolves.toBe(0);
    await expect(page.getByRole('button', { name: 'Save' }).count()).resolves.toBe(0);
    const refused = await sendFromPage(page, 'PATCH', api('project'), { name: 'Staff renamed it' });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(/^Changing "name" needs the owner role/);
    expect((await server.api.get('/api/v1/project')).body.name).toBe('Default');
    expect(staff.problems).toEqual([]);
  });
});

describe('every page, with real data', { timeout: 120_000 }, () => {
  it('makes secrets only where asked, and shows each once, on the page that made it', async () => {
    const { page } = owner;
    await visit(page, at('settings/keys'), 'Settings: API keys');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = (await page.locator('.secret code').textContent())!;
    expect(key).toMatch(/^sk_live_\w+$/);
    secrets.push({ value: key, shownBy: `POST ${api('keys')}` });
    await visit(page, at('settings/webhooks'), 'Settings: Webhooks');
    await page.getByLabel('URL', { exact: true }).fill('http://127.0.0.1:9/orders');
    await page.getByLabel('points.awarded').check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const signing = (await page.locator('.secret code').textContent())!;
    expect(signing).toMatch(/^whsec_/);
    secrets.push({ value: signing, shownBy: `POST ${api('webhooks')}` });
    await visit(page, at('settings/operators'), 'Settings: Operators');
    await page.getByLabel('Email', { exact: true }).fill('new@shop.example');
    await page.getByRole('button', { name: 'Make invitation link' }).click();
    const link = (await page.locator('.secret code').textContent())!;
    expect(link).toMatch(new RegExp(`^${server.url}/admin/invite/[\\w-]{43}$`));
    secrets.push({ value: link.split('/').at(-1)!, shownBy: `POST ${api('operators')}` });
    // Gone once the page is left: the lists name keys by their prefix, webhooks by their URL.
    await visit(page, at('settings/keys'), 'Settings: API keys');
    await expect(page.content()).resolves.not.toContain(key);
  });

  const PAGES: [string, string | RegExp][] = [
    ['overview', 'Overview'], ['members', 'Members'], ['members/alice', 'Alice Martin (alice)'], ['catalog/rewards', 'Catalog'],
    ['catalog/quests', 'Catalog'], ['catalog/badges', 'Catalog'], ['catalog/levels', 'Catalog'], ['catalog/games', 'Catalog'],
    ['catalog/promo-codes', 'Catalog'], ['catalog/multipliers', 'Catalog'], ['catalog/rewards/new', 'New reward'], ['catalog/games/:game', 'Lucky wheel'],
    ['claims', 'Claims'], ['widget', 'Widget'], ['settings/project', 'Settings: Project'], ['settings/keys', 'Settings: API keys'],
    ['settings/webhooks?webhook=:webhook', 'Settings: Webhooks'], ['settings/integrations', 'Settings: Integrations'],
    ['settings/operators', 'Settings: Operators'], ['settings/backups', 'Settings: Backups'], ['settings/account', 'Settings: My account'], ['audit', 'Audit log'],
  ];

  for (const width of [1280, 390]) {
    it(`passes axe-core on every page at ${width} px, fits the screen, and trips nothing of the policy`, async () => {
      const { page } = owner;
      await page.setViewportSize({ width, height: width < 500 ? 844 : 800 });
      const game = (await server.api.get('/api/v1/games')).body.games[0].id as string;
      const webhook = (await server.api.get('/api/v1/webhooks')).body.webhooks[0].id as string;
      for (const [path, heading] of PAGES) {
        await visit(page, at(path.replace(':game', game).replace(':webhook', webhook)), heading);
        if (!process.env.NOAXE) expect(await axeViolations(page), `${path} at ${width}`).toEqual([]);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), `${path} is wider than the screen`).toBeLessThanOrEqual(width);
        // Every page's picture on request (docs/images/ holds a few of them, made this way): they cost a fifth of the run.
        if (process.env.ADMIN_SCREENSHOTS) await page.screenshot({ path: join(ARTIFACTS, `admin-${path.split('?')[0]!.replaceAll('/', '-').replace(/:\w+/, 'item')}-${width}.png`) });
      }
      expect(owner.problems).toEqual([]);
    });
  }

  it('never sends a secret the browser did not just ask to create: no key, widget or webhook secret, link or session token in any page or answer', async () => {
    const everything = tabs.flatMap((tab) => tab.answers);
    expect(tabs).toHaveLength(3);
    expect(everything.length).toBeGreaterThan(100);
    for (const secret of secrets) {
      const holders = everything.filter((answer) => answer.body.includes(secret.value)).map((answer) => `${answer.method} ${answer.path.split('?')[0]}`);
      expect(holders, `${secret.value.slice(0, 8)}…`).toEqual(secret.shownBy ? [secret.shownBy] : []);
    }
  });
});

describe('members past the 10,000 a page may reach', { timeout: 60_000 }, () => {
  beforeAll(async () => {
    // A shop that moved over from another programme: ten thousand members and more, imported through the API.
    for (let batch = 0; batch < 10; batch++) {
      const rows = Array.from({ length: 1000 }, (_, i) => ({ externalId: `moved-${batch * 1000 + i}`, balance: (i * 7) % 500 }));
      const res = await server.api.post('/api/v1/members/import', { batchId: `moved-${batch}`, importKey: 'moved', rows });
      expect(res.status, res.text).toBe(200);
    }
  }, 60_000);

  it('pages on by the server\'s cursor past the 10,000th, back again, and the CSV has every member', async () => {
    const { page } = owner;
    await visit(page, at('members?offset=9950'), 'Members');
    const pager = page.getByRole('navigation', { name: 'Pages' });
    await expect(pager.locator('span').first().textContent()).resolves.toBe('9,951–10,000 of 10,005');
    await pager.getByRole('button', { name: 'Next' }).click();
    await page.waitForURL(/cursor=.+&page=201/);
    await settled(page);
    await expect(pager.locator('span').first().textContent()).resolves.toBe('10,001–10,005 of 10,005');
    // The five members who joined first, oldest last.
    await expect(page.getByRole('table', { name: 'Members' }).locator('tbody tr td:first-child').allTextContents()).resolves
      .toEqual(['eve', 'dan', 'carol', 'bob', 'alice']);
    await expect(pager.getByRole('button', { name: 'Next' }).isDisabled()).resolves.toBe(true);
    await pager.getByRole('button', { name: 'Previous' }).click();
    await page.waitForURL(at('members?offset=9950'));
    await settled(page);
    await expect(pager.locator('span').first().textContent()).resolves.toBe('9,951–10,000 of 10,005');
    // Sorted another way, a page cannot reach past 10,000: the pager says what to do instead.
    await visit(page, at('members?sort=points&order=desc&offset=9950'), 'Members');
    await expect(pager.getByRole('button', { name: 'Next' }).isDisabled()).resolves.toBe(true);
    await pager.getByText('Pages this deep are listed newest first only').waitFor();
    const deeper = await page.evaluate(async (path) => {
      const res = await fetch(path);
      return { status: res.status, body: await res.json() };
    }, api('members?sort=points&offset=10000'));
    expect(deeper).toEqual({ status: 400, body: { error: 'Bad Request', message: expect.stringMatching(/offset \+ limit must be at most 10000/) } });
    const csv = await download(page, () => page.getByRole('link', { name: 'Download CSV' }).click());
    const lines = csv.text.trim().split('\n');
    expect(lines).toHaveLength(10_006);
    expect(lines.slice(1, 3).map((line) => line.split(',')[1])).toEqual(['carol', 'alice']);
    expect(new Set(lines.slice(1).map((line) => line.split(',')[1])).size).toBe(10_005);
    expect(owner.problems).toEqual([]);
  });
});
