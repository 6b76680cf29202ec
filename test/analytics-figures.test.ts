import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as v from 'valibot';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../src/db/store.ts';
import { atomically } from '../src/db/transaction.ts';
import { checkFigures, rebuildFigures } from '../src/domain/analytics/recount.ts';
import { OVERVIEW_RANGES, overview } from '../src/domain/analytics/overview.ts';
import { pointsReport } from '../src/domain/analytics/points-report.ts';
import { createItem, SERVER_FIELDS } from '../src/domain/catalog/catalog-items.ts';
import { quests } from '../src/domain/catalog/quest-kind.ts';
import { rewards } from '../src/domain/catalog/reward-kind.ts';
import { checkLedger } from '../src/domain/ledger/audit.ts';
import { adjustPoints, expireDuePoints, membersWithDuePoints, postToLedger, type TransactionType } from '../src/domain/ledger/ledger.ts';
import { requireMember, upsertMember } from '../src/domain/members/members.ts';
import { eraseMember } from '../src/domain/members/privacy.ts';
import { createProject } from '../src/domain/project/projects.ts';
import { updateSettings } from '../src/domain/project/settings.ts';
import { completeQuest } from '../src/domain/quests/quest-progress.ts';
import { redeemReward } from '../src/domain/rewards/claims.ts';
import { overviewAnswer, pointsReportAnswer } from '../src/schemas/answers/analytics.ts';
import { AppError } from '../src/shared/errors.ts';
import { dayIn, itemsBetween, ledgerOracle } from './helpers/ledger-oracle.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

// The daily figures against the ledger: random programmes (awards, deductions, every ledger type,
// claims, quest completions, expiry, erasures, members joining, time zone changes) across days,
// midnights and daylight-saving changes; after each, the figures must equal their recount from
// the ledger (checkFigures) and what the ledger says computed apart (test/helpers/ledger-oracle.ts).

const dir = mkdtempSync(join(tmpdir(), 'punchcard-figures-'));
let store: Store;
beforeAll(async () => {
  store = await openStore({ path: join(dir, 'figures.db'), masterKey: TEST_MASTER_KEY, synchronous: 'NORMAL' });
});
afterAll(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const ZONES = ['UTC', 'Europe/Paris', 'Pacific/Kiritimati', 'America/St_Johns', 'Australia/Lord_Howe', 'Pacific/Pago_Pago'];
const TYPES: TransactionType[] = ['EARNED', 'REDEEMED', 'SPENT', 'DEDUCTED', 'REFUNDED', 'EXPIRED', 'IMPORTED'];
const MINUTE = 60_000;

type Op =
  | { op: 'advance'; minutes: number }
  | { op: 'back'; minutes: number }
  | { op: 'join'; member: number }
  | { op: 'award'; member: number; amount: number; expiresInHours: number | null }
  | { op: 'post'; member: number; amount: number; type: TransactionType; source: 'api' | 'order' | 'game' | 'reward' }
  | { op: 'claim'; member: number; reward: number }
  | { op: 'complete'; member: number; quest: number }
  | { op: 'expire' }
  | { op: 'erase'; member: number }
  | { op: 'timezone'; zone: string }
  | { op: 'rolledBack'; member: number; amount: number };

const member = fc.integer({ min: 0, max: 5 });
/** Each kind of step with its weight: mostly awards and spending, days passing, now and then the rest. */
const forward: fc.WeightedArbitrary<Op>[] = [
  { weight: 4, arbitrary: fc.record({ op: fc.constant('advance' as const), minutes: fc.oneof(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 600, max: 4 * 1440 })) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('join' as const), member }) },
  { weight: 5, arbitrary: fc.record({ op: fc.constant('award' as const), member, amount: fc.integer({ min: 1, max: 500 }),
    expiresInHours: fc.option(fc.integer({ min: 1, max: 72 }), { nil: null }) }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('post' as const), member, amount: fc.integer({ min: -300, max: 300 }).filter((n) => n !== 0),
    type: fc.constantFrom(...TYPES), source: fc.constantFrom('api' as const, 'order' as const, 'game' as const, 'reward' as const) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('claim' as const), member, reward: fc.integer({ min: 0, max: 2 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('complete' as const), member, quest: fc.integer({ min: 0, max: 1 }) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('expire' as const) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('erase' as const), member }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('timezone' as const), zone: fc.constantFrom(...ZONES) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('rolledBack' as const), member, amount: fc.integer({ min: 1, max: 100 }) }) },
];
const backward: fc.WeightedArbitrary<Op> = { weight: 2, arbitrary: fc.record({ op: fc.constant('back' as const), minutes: fc.integer({ min: 1, max: 1440 }) }) };
/** Every member joins first; erased ones may join again (a new member with the same externalId). */
const joined: Op[] = [0, 1, 2, 3, 4, 5].map((n) => ({ op: 'join', member: n }));
const programme = (steps: fc.WeightedArbitrary<Op>[]) => fc.array(fc.oneof(...steps), { minLength: 5, maxLength: 60, size: 'max' });

const rewardBody = (body: Record<string, unknown>) => v.parse(v.omit(rewards.schema, SERVER_FIELDS), body);
const questBody = (body: Record<string, unknown>) => v.parse(v.omit(quests.schema, SERVER_FIELDS), body);

let runs = 0;

/** Plays `ops` on a new project from `start`; returns the project and the time it ended at. */
function play(db: Store['db'], zone: string, start: Date, ops: Op[], box = store.box): { projectId: string; now: Date } {
  let now = start;
  const { project } = createProject(db, box, { name: `Run ${++runs}` }, now);
  const projectId = project.id;
  updateSettings(db, projectId, { timezone: zone });
  const rewardIds = [50, 0, 120].map((pointsCost, i) =>
    createItem(db, rewards, projectId, rewardBody({ name: `Reward ${i}`, type: 'CUSTOM', pointsCost }), now).id);
  const questIds = [25, 0].map((points, i) =>
    createItem(db, quests, projectId, questBody({ name: `Quest ${i}`, completionMode: 'MANUAL', points, repeatable: true }), now).id);
  const id = (n: number) => `m${n}`;
  const known = (n: number) => db.prepare('SELECT 1 FROM members WHERE project_id = ? AND external_id = ? AND erased_at IS NULL').get(projectId, id(n)) !== undefined;
  const tolerate = (work: () => unknown) => {
    try {
      work();
    } catch (error) {
      // Refusals (not enough points, an unknown member) write nothing, which the checks below see.
      if (!(error instanceof AppError)) throw error;
    }
  };
  for (const step of ops) {
    switch (step.op) {
      case 'advance': now = new Date(now.getTime() + step.minutes * MINUTE); break;
      case 'back': now = new Date(now.getTime() - step.minutes * MINUTE); break;
      case 'join': upsertMember(db, projectId, { externalId: id(step.member) }, now); break;
      case 'award':
        if (!known(step.member)) break;
        adjustPoints(db, projectId, id(step.member), {
          amount: step.amount, expiresAt: step.expiresInHours === null ? undefined : new Date(now.getTime() + step.expiresInHours * 60 * MINUTE),
        }, 'test', now);
        break;
      case 'post':
        tolerate(() => atomically(db, () => postToLedger(db, requireMember(db, projectId, id(step.member)),
          { amount: step.amount, type: step.type, source: step.source, actor: 'test' }, now)));
        break;
      case 'claim': tolerate(() => redeemReward(db, projectId, rewardIds[step.reward]!, id(step.member), 'test', now)); break;
      case 'complete': tolerate(() => completeQuest(db, projectId, questIds[step.quest]!, { externalId: id(step.member) }, 'test', now)); break;
      case 'expire':
        // The expiry pass, for this project's members (the pass itself runs over every project).
        for (const memberId of membersWithDuePoints(db, now, 1000)) {
          if (db.prepare('SELECT project_id FROM members WHERE id = ?').pluck().get(memberId) === projectId) expireDuePoints(db, memberId, now);
        }
        break;
      case 'erase': tolerate(() => eraseMember(db, projectId, id(step.member), now)); break;
      case 'timezone': updateSettings(db, projectId, { timezone: step.zone }); break;
      case 'rolledBack':
        // A write whose transaction rolls back: its figures go with it.
        tolerate(() => atomically(db, () => {
          upsertMember(db, projectId, { externalId: `gone${step.member}` }, now);
          adjustPoints(db, projectId, `gone${step.member}`, { amount: step.amount }, 'test', now);
          throw new AppError(409, 'Conflict', 'rolled back on purpose');
        }));
        break;
    }
  }
  return { projectId, now };
}

const inStep = (db: Store['db'], projectId: string) => expect(checkFigures(db, projectId)).toEqual({ problems: [], memberDays: 0 });

/** The points report over every day the ledger touches, against the oracle, day by day. */
function reportMatches(db: Store['db'], projectId: string, now: Date): void {
  const oracle = ledgerOracle(db, projectId);
  const zone = db.prepare('SELECT timezone FROM projects WHERE id = ?').pluck().get(projectId) as string;
  const dates = [...oracle.days.keys(), dayIn(now.toISOString(), zone)].sort();
  const from = dates[0]!;
  const to = dates.at(-1)!;
  const report = pointsReport(db, projectId, from, to);
  v.parse(pointsReportAnswer, report);
  let previousEnd: number | null = null;
  for (const day of report.days) {
    const expected = oracle.days.get(day.date);
    expect(day, day.date).toMatchObject({
      earned: expected?.earned ?? 0, earnedReversed: expected?.earnedReversed ?? 0, redeemed: expected?.redeemed ?? 0,
      redeemedReimbursed: expected?.redeemedReimbursed ?? 0, expired: expected?.expired ?? 0, outstandingEnd: oracle.heldAt(day.date),
    });
    if (previousEnd !== null) expect(day.outstandingStart).toBe(previousEnd);
    expect(day.outstandingEnd).toBe(day.outstandingStart + day.earned - day.earnedReversed - day.redeemed + day.redeemedReimbursed - day.expired);
    previousEnd = day.outstandingEnd;
  }
  expect(previousEnd).toBe(oracle.outstanding);
}

const top = (items: Map<string, { count: number; points: number }>, byPoints: boolean) => [...items]
  .sort(([a, x], [b, y]) => (byPoints ? y.points - x.points || y.count - x.count : y.count - x.count || y.points - x.points) || (a < b ? -1 : 1));

/** Every Overview range, against the oracle's plain definitions (the clock only moved forward). */
function overviewMatches(db: Store['db'], projectId: string, now: Date): void {
  const oracle = ledgerOracle(db, projectId);
  for (const range of OVERVIEW_RANGES) {
    const answer = overview(db, projectId, range, now);
    v.parse(overviewAnswer, answer);
    const { from, to } = answer;
    expect(answer.days).toHaveLength(range);
    const daysIn = [...oracle.days].filter(([day]) => day >= from && day <= to).map(([, day]) => day);
    const issued = daysIn.reduce((sum, day) => sum + day.earned, 0);
    const redeemed = daysIn.reduce((sum, day) => sum + day.redeemed, 0);
    const active = [...oracle.activity.values()].filter((days) => [...days].some((day) => day >= from && day <= to)).length;
    expect(answer.totals).toEqual({
      members: oracle.members, activeMembers: active, newMembers: daysIn.reduce((sum, day) => sum + day.newMembers, 0),
      pointsIssued: issued, pointsRedeemed: redeemed, pointsExpired: daysIn.reduce((sum, day) => sum + day.expired, 0),
      redemptionRate: issued === 0 ? null : redeemed / issued, outstanding: oracle.outstanding, outstandingValue: null,
    });
    for (const day of answer.days) {
      const expected = oracle.days.get(day.date);
      expect(day, day.date).toEqual({
        date: day.date, newMembers: expected?.newMembers ?? 0, activeMembers: expected?.active.size ?? 0, issued: expected?.earned ?? 0,
        redeemed: expected?.redeemed ?? 0, expired: expected?.expired ?? 0, outstanding: oracle.heldAt(day.date),
      });
    }
    expect(answer.topRewards.map((r) => [r.id, { count: r.claims, points: r.points }])).toEqual(top(itemsBetween(oracle.claims, from, to), false).slice(0, 5));
    expect(answer.topQuests.map((q) => [q.id, { count: q.completions, points: q.points }])).toEqual(top(itemsBetween(oracle.completions, from, to), false).slice(0, 5));
    expect(answer.earningSources.map((s) => [s.source, { count: s.count, points: s.points }])).toEqual(top(itemsBetween(oracle.sources, from, to), true));
  }
}

const start = fc.date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2026-12-31T00:00:00Z'), noInvalidDate: true });

describe('the daily figures, kept in step with the ledger', () => {
  it('equal the ledger after random programmes across days and time zones (the clock moving forward)', () => {
    fc.assert(fc.property(fc.constantFrom(...ZONES), start, programme(forward), (zone, at, ops) => {
      const { projectId, now } = play(store.db, zone, at, [...joined, ...ops]);
      inStep(store.db, projectId);
      reportMatches(store.db, projectId, now);
      overviewMatches(store.db, projectId, now);
    }), { numRuns: 30 });
    expect(checkLedger(store.db)).toEqual([]);
  });

  it('stay equal to their recount when the clock moves back across midnight', () => {
    fc.assert(fc.property(fc.constantFrom(...ZONES), start, programme([...forward, backward]), (zone, at, ops) => {
      const { projectId, now } = play(store.db, zone, at, [...joined, ...ops]);
      inStep(store.db, projectId);
      reportMatches(store.db, projectId, now);
    }), {
      numRuns: 20,
      // Found by a run: a spend dated (by the clock set back) before midnight, the award it spent after it.
      examples: [['UTC', new Date('2026-01-01T00:00:00.000Z'), [
        { op: 'award', member: 1, amount: 2, expiresInHours: null }, { op: 'back', minutes: 1 },
        { op: 'post', member: 1, amount: -2, type: 'EARNED', source: 'api' }, { op: 'back', minutes: 1 },
        { op: 'post', member: 0, amount: 1, type: 'EARNED', source: 'api' }, { op: 'rolledBack', member: 0, amount: 1 },
        { op: 'complete', member: 0, quest: 1 }, { op: 'back', minutes: 1 }]]],
    });
  });

  it('are rebuilt from the ledger when they were tampered with, and the check names the day', () => {
    const { projectId, now } = play(store.db, 'Europe/Paris', new Date('2026-03-28T20:00:00Z'), [
      { op: 'join', member: 0 }, { op: 'award', member: 0, amount: 100, expiresInHours: null }, { op: 'advance', minutes: 600 },
      { op: 'claim', member: 0, reward: 0 }, { op: 'complete', member: 0, quest: 0 },
    ]);
    const before = overview(store.db, projectId, 7, now);
    store.db.prepare("UPDATE daily_figures SET earned = earned + 1 WHERE project_id = ? AND day = '2026-03-28' AND kind = 'day'").run(projectId);
    store.db.prepare("DELETE FROM daily_figures WHERE project_id = ? AND kind = 'reward'").run(projectId);
    store.db.prepare('UPDATE members SET active_day = NULL WHERE project_id = ?').run(projectId);
    const check = checkFigures(store.db, projectId);
    expect(check.memberDays).toBe(1);
    expect(check.problems).toEqual([
      expect.objectContaining({ projectId, row: 'daily_figures 2026-03-28 day', figures: expect.objectContaining({ earned: 101 }), ledger: expect.objectContaining({ earned: 100 }) }),
      expect.objectContaining({ projectId, row: expect.stringMatching(/^daily_figures 2026-03-29 reward rwd_/), figures: null,
        ledger: expect.objectContaining({ count: 1, points: 50 }) }),
    ]);
    expect(rebuildFigures(store.db, projectId).rows).toBeGreaterThan(0);
    inStep(store.db, projectId);
    expect(overview(store.db, projectId, 7, now)).toEqual(before);
  });

  it('count the days of the new time zone after a change (a rebuild in the same transaction)', () => {
    // 23:30 UTC on 10 March is 11 March in Paris: the award moves to the next day with the zone.
    const { projectId, now } = play(store.db, 'UTC', new Date('2026-03-10T23:30:00Z'), [
      { op: 'join', member: 0 }, { op: 'award', member: 0, amount: 40, expiresInHours: null },
    ]);
    const day = (zone: string) => overview(store.db, projectId, 7, now).days.filter((d) => d.issued > 0).map((d) => [d.date, zone]);
    expect(day('UTC')).toEqual([['2026-03-10', 'UTC']]);
    updateSettings(store.db, projectId, { timezone: 'Europe/Paris' });
    expect(day('Europe/Paris')).toEqual([['2026-03-11', 'Europe/Paris']]);
    expect(store.db.prepare("SELECT active_day FROM members WHERE project_id = ? AND external_id = 'm0'").pluck().get(projectId)).toBe('2026-03-11');
    inStep(store.db, projectId);
  });

  it('are backfilled from the ledger by migration 0034 on a database that had none', async () => {
    const path = join(dir, 'before-0034.db');
    let older = await openStore({ path, masterKey: TEST_MASTER_KEY, synchronous: 'NORMAL' });
    const programme = (n: number): Op[] => [...joined, ...Array.from({ length: 30 }, (_, i): Op[] => [
      { op: 'award', member: (i + n) % 6, amount: 10 + i, expiresInHours: i % 4 === 0 ? 20 : null }, { op: 'advance', minutes: 300 + 97 * i },
      { op: 'claim', member: (i * 5) % 6, reward: i % 3 }, { op: 'complete', member: i % 6, quest: i % 2 },
      { op: 'post', member: (i + 2) % 6, amount: i % 2 === 0 ? -7 : 3, type: TYPES[i % TYPES.length]!, source: 'order' },
      ...(i % 9 === 8 ? [{ op: 'erase', member: i % 6 } as Op, { op: 'join', member: i % 6 } as Op] : []), { op: 'expire' },
    ]).flat()];
    const played = ['Europe/Paris', 'America/St_Johns'].map((zone, n) => play(older.db, zone, new Date('2026-03-20T12:00:00Z'), programme(n), older.box));
    const answers = () => played.map(({ projectId, now }) => [overview(older.db, projectId, 30, now), pointsReport(older.db, projectId, '2026-03-15', '2026-04-15')]);
    const before = answers();
    // The database as it was before 0034: none of its tables, views, columns or index.
    older.db.exec(`DROP VIEW daily_order_figures_recount; DROP VIEW daily_figures_recount;
      DROP VIEW member_active_days; DROP VIEW ledger_flows; DROP TABLE daily_figures; DROP TABLE daily_order_figures;
      DROP INDEX commerce_orders_shopper; ALTER TABLE members DROP COLUMN active_day; ALTER TABLE commerce_orders DROP COLUMN total_cents;
      ALTER TABLE commerce_orders DROP COLUMN currency; ALTER TABLE commerce_orders DROP COLUMN shopper; ALTER TABLE commerce_orders DROP COLUMN revenue_cents;
      DELETE FROM schema_migrations WHERE version = 34;`);
    older.close();
    older = await openStore({ path, masterKey: TEST_MASTER_KEY, synchronous: 'NORMAL' });
    try {
      for (const { projectId, now } of played) {
        inStep(older.db, projectId);
        reportMatches(older.db, projectId, now);
        overviewMatches(older.db, projectId, now);
      }
      expect(answers()).toEqual(before);
    } finally {
      older.close();
    }
  });

  it("keep a transaction's earlier figures when a recount inside it is rolled back", () => {
    const { projectId, now } = play(store.db, 'UTC', new Date('2026-05-05T10:00:00Z'), [{ op: 'join', member: 0 }]);
    atomically(store.db, () => {
      adjustPoints(store.db, projectId, 'm0', { amount: 70 }, 'test', now); // tallied, not written yet
      // A time zone change recounts the figures (writing the tallies first), then its savepoint rolls back.
      expect(() => atomically(store.db, () => {
        updateSettings(store.db, projectId, { timezone: 'Asia/Tokyo' });
        throw new AppError(409, 'Conflict', 'rolled back on purpose');
      })).toThrow('rolled back on purpose');
      adjustPoints(store.db, projectId, 'm0', { amount: 5 }, 'test', now);
    });
    inStep(store.db, projectId);
    expect(overview(store.db, projectId, 7, now).totals).toMatchObject({ outstanding: 75, pointsIssued: 75, activeMembers: 1 });
    expect(store.db.prepare('SELECT timezone FROM projects WHERE id = ?').pluck().get(projectId)).toBe('UTC');
  });
});
