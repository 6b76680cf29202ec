import { spawn } from 'node:child_process';
import { parse } from 'csv-parse/sync';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkFigures } from '../src/domain/analytics/recount.ts';
import { overview } from '../src/domain/analytics/overview.ts';
import { pointsReport } from '../src/domain/analytics/points-report.ts';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { overviewQuery, pointsReportQuery } from '../src/schemas/analytics.ts';
import { projectAnswer } from '../src/schemas/answers/project.ts';
import { BIN, punchcard } from './helpers/cli.ts';
import { ledgerOracle } from './helpers/ledger-oracle.ts';
import { startTestServer, TEST_MASTER_KEY, TestClock, type TestServer } from './helpers/server.ts';

// `punchcard report points`, doctor's figures check and --rebuild-figures, the valuePerPoint
// setting, and the figures under concurrent writers: the server's group commits and CLI
// processes awarding on the same file at the same time.

let server: TestServer;
const HOUR = 3_600_000;
const clock = new TestClock(new Date('2026-10-24T20:00:00.000Z'));
const cli = (...args: string[]) => punchcard(['--db', server.dbPath, ...args]);
const project = () => ['--project', server.projectId];

beforeAll(async () => {
  server = await startTestServer({ clock });
  // Paris: summer time ends on 25 October 2026, so that day has 25 hours.
  expect((await server.api.patch('/api/v1/project', { timezone: 'Europe/Paris' })).status).toBe(200);
  const reward = (await server.api.post('/api/v1/rewards', { name: 'Tote bag', type: 'CUSTOM', pointsCost: 30 })).body.id as string;
  for (const externalId of ['ann', 'ben']) expect((await server.api.post('/api/v1/members', { externalId })).status).toBe(201);
  for (const step of [
    () => server.api.post('/api/v1/members/ann/points', { amount: 100 }),
    () => server.api.post('/api/v1/members/ben/points', { amount: 40 }),
    () => server.api.post(`/api/v1/rewards/${reward}/redeem`, { externalId: 'ann' }),
    () => server.api.post('/api/v1/members/ben/points', { amount: -15 }),
  ]) {
    expect((await step()).status).toBe(200);
    clock.advance(7 * HOUR);
  }
});
afterAll(async () => {
  expect(checkLedger(server.ctx.db)).toEqual([]);
  await server.stop();
});

describe('punchcard report points', () => {
  it('prints the points-accounting table as CSV, JSON or a table, the same figures as the domain function', () => {
    const expected = pointsReport(server.ctx.db, server.projectId, '2026-10-23', '2026-10-26');
    expect(expected.days.map((d) => [d.date, d.earned, d.redeemed, d.earnedReversed, d.outstandingEnd])).toEqual([
      ['2026-10-23', 0, 0, 0, 0], ['2026-10-24', 100, 0, 0, 100], ['2026-10-25', 40, 30, 15, 95], ['2026-10-26', 0, 0, 0, 95],
    ]);
    const csv = cli('report', 'points', ...project(), '--from', '2026-10-23', '--to', '2026-10-26', '--format', 'csv');
    expect(csv.status, csv.stderr).toBe(0);
    expect(csv.stdout.split('\n')[0]).toBe('date,outstandingStart,earned,earnedReversed,redeemed,redeemedReimbursed,expired,outstandingEnd');
    expect(parse(csv.stdout, { columns: true, cast: (value, context) => (context.header || context.column === 'date' ? value : Number(value)) })).toEqual(expected.days);
    const json = cli('report', 'points', ...project(), '--from', '2026-10-23', '--to', '2026-10-26', '--format', 'json');
    expect(JSON.parse(json.stdout)).toEqual(expected);
    const table = cli('report', 'points', ...project(), '--from', '2026-10-25', '--to', '2026-10-25');
    expect(table.stdout).toMatch(/^date\s+outstandingStart\s+earned\s+earnedReversed/);
    expect(table.stdout).toMatch(/2026-10-25\s+100\s+40\s+15\s+30\s+0\s+0\s+95/);
  });

  it('refuses dates that are not days, a range backwards and one too long, naming the problem', () => {
    const bad = (from: string, to: string) => cli('report', 'points', ...project(), '--from', from, '--to', to, '--format', 'csv');
    expect(bad('2026-02-30', '2026-03-01')).toMatchObject({ status: 1, stderr: expect.stringContaining('"from" must be a date such as') });
    expect(bad('2026-03-02', '2026-03-01')).toMatchObject({ status: 1, stderr: expect.stringContaining('"from" (2026-03-02) must not be after "to" (2026-03-01)') });
    expect(bad('2000-01-01', '2026-03-01')).toMatchObject({ status: 1, stderr: expect.stringContaining('A report covers at most 3660 days') });
    expect(cli('report', 'points', '--project', 'prj_nope', '--from', '2026-01-01', '--to', '2026-01-02')).toMatchObject({ status: 1, stderr: expect.stringContaining('no project prj_nope') });
  });
});

describe("the admin routes' query schemas", () => {
  it('take the Overview ranges and report dates the contract names, refusing others with a message naming the field', () => {
    expect(v.parse(overviewQuery, {})).toEqual({ range: 30 });
    expect(v.parse(overviewQuery, { range: '365' })).toEqual({ range: 365 });
    expect(v.safeParse(overviewQuery, { range: '31' }).issues?.[0]?.message).toBe('"range" must be one of 7, 30, 90, 365 (days)');
    expect(v.parse(pointsReportQuery, { from: '2026-01-01', to: '2026-01-31', format: 'csv' })).toEqual({ from: '2026-01-01', to: '2026-01-31', format: 'csv' });
    expect(v.safeParse(pointsReportQuery, { from: '1 Jan', to: '2026-01-31' }).issues?.[0]?.message).toMatch(/^"from" must be a date such as 2026-11-30/);
    expect(v.safeParse(pointsReportQuery, { from: '2026-01-01', to: '2026-01-31', format: 'xml' }).success).toBe(false);
  });
});

describe('punchcard doctor and the daily figures', () => {
  it('reports figures out of step with the ledger, naming the day, and --rebuild-figures recounts them', () => {
    const healthy = cli('doctor');
    expect(healthy.stdout, healthy.stderr).toContain('Daily figures: in step with the ledger');
    server.ctx.db.prepare("UPDATE daily_figures SET redeemed = redeemed + 5 WHERE project_id = ? AND day = '2026-10-25' AND kind = 'day'").run(server.projectId);
    const sick = cli('doctor');
    expect(sick.status).toBe(1);
    expect(sick.stdout).toContain('Daily figures: out of step with the ledger; `punchcard doctor --rebuild-figures` recounts them:');
    expect(sick.stdout).toMatch(new RegExp(`project ${server.projectId} daily_figures 2026-10-25 day: the figures say .*redeemed 35.*; the ledger says .*redeemed 30`));
    const mended = cli('doctor', '--rebuild-figures', '--json');
    expect(JSON.parse(mended.stdout).figures).toMatchObject({ problems: [], memberDays: 0, rebuilt: { rows: expect.any(Number) } });
    expect(checkFigures(server.ctx.db)).toEqual({ problems: [], memberDays: 0 });
  });
});

describe('the value of a point', () => {
  it('is a project setting (API and CLI) that turns the outstanding points into money, rounded to the currency', async () => {
    expect((await server.api.get('/api/v1/project')).body.valuePerPoint).toBeNull();
    const set = await server.api.patch('/api/v1/project', { valuePerPoint: { amount: 0.0125, currency: 'EUR' } });
    expect(set.status, set.text).toBe(200);
    expect(v.parse(projectAnswer, set.body).valuePerPoint).toEqual({ amount: 0.0125, currency: 'EUR' });
    // 95 points at 0.0125 EUR: 1.1875, so 1.19.
    expect(overview(server.ctx.db, server.projectId, 7, clock.now()).totals).toMatchObject({ outstanding: 95, outstandingValue: { amount: 1.19, currency: 'EUR' } });

    expect(cli('project', 'set', ...project(), '--value-per-point', '3', 'jpy').status).toBe(0);
    expect(overview(server.ctx.db, server.projectId, 7, clock.now()).totals.outstandingValue).toEqual({ amount: 285, currency: 'JPY' });
    expect(cli('project', 'set', ...project(), '--value-per-point', 'three', 'EUR')).toMatchObject({ status: 1, stderr: expect.stringContaining('--value-per-point takes') });

    for (const bad of [{ amount: 0, currency: 'EUR' }, { amount: 1, currency: 'XYZ' }, { amount: 1 }, 'EUR']) {
      const refused = await server.api.patch('/api/v1/project', { valuePerPoint: bad });
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.body.message).toMatch(/valuePerPoint/);
    }
    expect((await server.api.patch('/api/v1/project', { valuePerPoint: null })).body.valuePerPoint).toBeNull();
    expect(overview(server.ctx.db, server.projectId, 7, clock.now()).totals.outstandingValue).toBeNull();
  });
});

describe('the figures under concurrent writers', () => {
  it('stay exact while the server group-commits awards, claims and refusals and CLI processes award on the same file', async () => {
    clock.advance(24 * HOUR);
    const reward = (await server.api.post('/api/v1/rewards', { name: 'Sticker', type: 'CUSTOM', pointsCost: 7 })).body.id as string;
    const members = Array.from({ length: 8 }, (_, i) => `c${i}`);
    for (const externalId of members) await server.api.post('/api/v1/members', { externalId });
    const request = (i: number) => {
      const member = members[i % members.length]!;
      if (i % 5 === 3) return server.api.post(`/api/v1/rewards/${reward}/redeem`, { externalId: member });
      return server.api.post(`/api/v1/members/${member}/points`, { amount: i % 4 === 1 ? -9 : 5 + (i % 7) }); // some deductions are refused
    };
    // CLI processes award meanwhile: each its own connection and BEGIN IMMEDIATE against the server's.
    let running = 4;
    const processes = members.slice(0, 4).map((member) => new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [BIN, '--db', server.dbPath, 'points', 'add', ...project(), '--member', member, '--amount', '11'],
        { env: { ...process.env, PUNCHCARD_MASTER_KEY: TEST_MASTER_KEY }, stdio: 'ignore' });
      child.once('exit', (code) => {
        running--;
        resolve(code);
      });
    }));
    const answers: Awaited<ReturnType<typeof request>>[] = [];
    // Batches of concurrent requests until every CLI process has exited (at least 10 batches).
    for (let batch = 0; running > 0 || batch < 10; batch++) {
      answers.push(...await Promise.all(Array.from({ length: 24 }, (_, i) => request(batch * 24 + i))));
    }
    expect(await Promise.all(processes)).toEqual([0, 0, 0, 0]);
    expect(answers.filter((res) => res.status === 400).length).toBeGreaterThan(0);
    expect(answers.every((res) => res.status === 200 || res.status === 400)).toBe(true);

    expect(checkFigures(server.ctx.db)).toEqual({ problems: [], memberDays: 0 });
    const oracle = ledgerOracle(server.ctx.db, server.projectId);
    const { totals } = overview(server.ctx.db, server.projectId, 30, clock.now());
    expect(totals.outstanding).toBe(oracle.outstanding);
    expect(totals.members).toBe(oracle.members);
    expect(totals.pointsRedeemed).toBe([...oracle.days.values()].reduce((sum, day) => sum + day.redeemed, 0));
  });
});
