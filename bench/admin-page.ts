// npm run bench:admin [-- --members 100000 --rows 1000000 --runs 10]
//
// The admin's Overview page in Chromium, against the built server on a project of `members`
// members and `rows` ledger rows over the 365 days before today (bench/dataset.ts's figures
// dataset, cached per day; the server's start runs migration 0034's backfill on a copy): how long
// until the page is usable, meaning its data is drawn (the three uPlot canvases painted and the
// points-accounting table filled):
//   1. after navigation: on the Members page, a click on Overview in the navigation (the page's
//      script not loaded yet in that browser), to drawn, 30 days;
//   2. opened directly: a new browser (empty cache) loading /admin/…/overview, from navigation start
//      to drawn, 30 and 365 days.
// Each run is a new browser context. The server is pinned to core 0, Chromium and this script to
// core 1 (`taskset`); the server's CPU per page is read from /proc. `npm run admin:size` gives the
// JavaScript's sizes.
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { figuresDataset } from './dataset.ts';
import { cpuMs } from './machine.ts';
import { buildBundle, startBuiltServer, stopServer } from './pinned-server.ts';
import { LOAD_CORE, PINNED, tempDirs } from './processes.ts';
import { BENCH_MASTER_KEY, fmt, option, table } from './settings.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const MEMBERS = Number(option('members', '100000'));
const ROWS = Number(option('rows', '1000000'));
const RUNS = Number(option('runs', '10'));
const PASSWORD = 'bench password, long enough';
const DAY_S = 86_400;

// Chromium and this script on the load core; the server pins itself to the other.
if (PINNED) execFileSync('taskset', ['-cp', String(LOAD_CORE), String(process.pid)], { stdio: 'ignore' });

/** The dataset's year ends yesterday (UTC), so the Overview's ranges, ending today, hold it. */
const today = Math.floor(Date.now() / 1000 / DAY_S) * DAY_S;
console.log(`Dataset: ${fmt(MEMBERS)} members, ${fmt(ROWS)} ledger rows over the 365 days before today (load average ${loadavg()[0]!.toFixed(2)})`);
const built = await figuresDataset(MEMBERS, ROWS, today - 365 * DAY_S);
const work = mkdtempSync(join(tmpdir(), 'punchcard-bench-admin-'));
tempDirs.add(work);
const db = join(work, 'admin.db');
for (const suffix of ['', '-wal']) if (existsSync(built.path + suffix)) copyFileSync(built.path + suffix, db + suffix);

buildBundle();
const cli = (args: string[]) => {
  const result = spawnSync(process.execPath, [join(root, 'cli/punchcard.mjs'), '--db', db, ...args], {
    encoding: 'utf8', env: { ...process.env, PUNCHCARD_MASTER_KEY: BENCH_MASTER_KEY },
  });
  if (result.status !== 0) throw new Error(`punchcard ${args.join(' ')}: ${result.stderr}`);
  return result.stdout;
};
const migrateStarted = performance.now();
cli(['migrate']);
console.log(`Migrated a copy (the daily figures' backfill): ${fmt(Math.round(performance.now() - migrateStarted))} ms`);
const server = await startBuiltServer(db, '');
const { link } = JSON.parse(cli(['admin', 'invite', 'bench@shop.example', '--role', 'owner', '--project', built.projectId, '--public-url', server.url, '--json'])) as { link: string };
const accepted = await fetch(`${server.url}/api/admin/invites/${link.split('/').at(-1)}`, {
  method: 'POST', headers: { 'content-type': 'application/json', origin: server.url }, body: JSON.stringify({ password: PASSWORD }),
});
if (!accepted.ok) throw new Error(`accepting the invite: ${accepted.status} ${await accepted.text()}`);
const cookies = accepted.headers.getSetCookie().map((line) => line.split(';')[0]!.split('='))
  .map(([name, value]) => ({ name: name!, value: value!, url: server.url }));
const overview = (range: number) => `${server.url}/admin/projects/${built.projectId}/overview?range=${range}`;

/**
 * In the page: when the Overview's figures and charts were drawn (the three canvases painted) and
 * when its points-accounting table was filled too, as performance.now() (ms since navigation
 * start). Given as text: tsx names the functions it compiles (`__name`), which the page lacks.
 */
const drawn = (page: Page, days: number): Promise<{ charts: number; table: number }> => page.evaluate(`new Promise((resolve) => {
  const painted = (canvas) => {
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    for (let i = 3; i < pixels.length; i += 16) if (pixels[i] > 0) return true;
    return false;
  };
  let charts = null;
  const check = () => {
    const canvases = Array.from(document.querySelectorAll('.plot canvas'));
    if (charts === null && canvases.length === 3 && canvases.every(painted)) charts = performance.now();
    const rows = document.querySelectorAll('section[aria-labelledby="accounting"] tbody tr').length;
    if (charts !== null && rows >= ${days}) resolve({ charts, table: performance.now() });
    else requestAnimationFrame(check);
  };
  check();
})`);

type Timing = { charts: number; table: number; serverCpuMs: number };

async function afterNavigation(browser: Browser): Promise<Timing> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies(cookies);
  const page = await context.newPage();
  await page.goto(`${server.url}/admin/projects/${built.projectId}/members`);
  await page.getByRole('table', { name: 'Members' }).locator('tbody tr').nth(10).waitFor();
  const cpu = cpuMs(server.pid);
  const clicked = await page.evaluate(`(() => {
    const at = performance.now();
    Array.from(document.querySelectorAll('nav a')).find((a) => a.textContent === 'Overview').click();
    return at;
  })()`) as number;
  const done = await drawn(page, 30);
  const serverCpuMs = cpuMs(server.pid) - cpu;
  await context.close();
  return { charts: done.charts - clicked, table: done.table - clicked, serverCpuMs };
}

async function openedDirectly(browser: Browser, range: number): Promise<Timing> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.addCookies(cookies);
  const page = await context.newPage();
  const cpu = cpuMs(server.pid);
  await page.goto(overview(range), { waitUntil: 'commit' });
  const done = await drawn(page, range);
  const serverCpuMs = cpuMs(server.pid) - cpu;
  await context.close();
  return { ...done, serverCpuMs };
}

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu', '--no-first-run'] });
const cases: [string, (browser: Browser) => Promise<Timing>][] = [
  ['after navigation (Members → Overview), 30 days', afterNavigation],
  ['opened directly, empty cache, 30 days', (b) => openedDirectly(b, 30)],
  ['opened directly, empty cache, 365 days', (b) => openedDirectly(b, 365)],
];
const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!;
const rows: string[][] = [];
for (const [name, run] of cases) {
  await run(browser); // a first, unmeasured run: the server's first answers compile their code
  const results: Timing[] = [];
  for (let i = 0; i < RUNS; i++) results.push(await run(browser));
  const column = (key: 'charts' | 'table') => {
    const ms = results.map((r) => r[key]);
    return [fmt(Math.round(quantile(ms, 0.5))), fmt(Math.round(quantile(ms, 0.9))), fmt(Math.round(Math.max(...ms)))];
  };
  rows.push([name, ...column('charts'), ...column('table'), fmt(Math.round(quantile(results.map((r) => r.serverCpuMs), 0.5)))]);
  console.log(`  ${name}: charts ${results.map((r) => Math.round(r.charts)).join(' ')} ms, table ${results.map((r) => Math.round(r.table)).join(' ')} ms `
    + `(load ${loadavg()[0]!.toFixed(2)})`);
}
await browser.close();
await stopServer(server);
console.log(`\nThe Overview, usable (data drawn), ${RUNS} runs each:`);
console.log(table(['case', 'charts: median ms', 'p90', 'max', 'and table: median ms', 'p90', 'max', 'server CPU ms (median)'], rows));
