import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { beforeCommit, onRollback } from '../../db/transaction-hooks.ts';
import { localDate } from '../../shared/local-dates.ts';
import { projectTimeZone } from '../project/calendar.ts';

/**
 * The programme's daily figures, kept in step with the ledger by the writes themselves
 * (migrations/0034 has the tables and, as views, what each figure is recounted from the ledger).
 * A write adds what it changes to a tally held in memory for its transaction; the tallies go to
 * the tables once, just before the COMMIT, one statement per row (day, item) they touched. So an
 * award in a group commit of fifty costs a few map updates, not three more statements, and a
 * rolled-back write takes its share of the tally back with it (onRollback), as SQLite takes back
 * its rows.
 */

interface Table {
  name: string;
  keys: readonly string[];
  columns: readonly string[];
}

const table = <C extends string>(name: string, keys: readonly string[], columns: readonly C[]) => ({ name, keys, columns });

/** A day's own figures (its row of kind 'day'), then an item's (count, points). */
const FIGURE_COLUMNS = ['new_members', 'erased_members', 'active_members', 'last_active', 'earned', 'earned_reversed', 'redeemed',
  'redeemed_reimbursed', 'expired', 'count', 'points'] as const;
export type DayColumn = Exclude<(typeof FIGURE_COLUMNS)[number], 'count' | 'points'>;
const DAYS = table('daily_figures', ['project_id', 'day', 'kind', 'item'], FIGURE_COLUMNS);

export type ItemKind = 'source' | 'reward' | 'quest';

export const ORDER_COLUMNS = ['orders', 'revenue_cents', 'shoppers_latest', 'shoppers_second'] as const;
export type OrderColumn = (typeof ORDER_COLUMNS)[number];
export type Segment = 'member' | 'guest';
const ORDERS = table('daily_order_figures', ['project_id', 'day', 'segment'], ORDER_COLUMNS);

export const FIGURE_TABLES: readonly Table[] = [DAYS, ORDERS];

interface Tally {
  keys: string[];
  values: number[];
}

/** Per connection, the open transaction's tallies by table and key; replaced (never emptied) when written. */
const pending = new WeakMap<Db, Map<Table, Map<string, Tally>>>();

/** Per table and set of columns (a bit mask), the UPDATE that adds to just those columns of one row. */
const updates = new Map<Table, Map<number, string>>();

function updateSql(target: Table, mask: number): string {
  let byMask = updates.get(target);
  if (!byMask) {
    byMask = new Map();
    updates.set(target, byMask);
  }
  let sql = byMask.get(mask);
  if (!sql) {
    const columns = target.columns.filter((_, i) => mask & (1 << i));
    sql = `UPDATE ${target.name} SET ${columns.map((c) => `${c} = ${c} + ?`).join(', ')} WHERE ${target.keys.map((k) => `${k} = ?`).join(' AND ')}`;
    byMask.set(mask, sql);
  }
  return sql;
}

/**
 * Adds a tally to its row: an UPDATE of the columns it changes (most writes touch one to three of
 * eleven, on a row that exists), or the row's INSERT when it is the first of its day or item.
 */
function writeTally(db: Db, target: Table, { keys, values }: Tally): void {
  let mask = 0;
  const changes: number[] = [];
  values.forEach((value, i) => {
    if (value === 0) return;
    mask |= 1 << i;
    changes.push(value);
  });
  if (mask === 0) return;
  if (stmt(db, updateSql(target, mask)).run(...changes, ...keys).changes > 0) return;
  stmt(db, `INSERT INTO ${target.name} (${[...target.keys, ...target.columns].join(', ')})
    VALUES (${[...target.keys, ...target.columns].map(() => '?').join(', ')})`).run(...keys, ...values);
}

/**
 * Writes what the transaction tallied so far. Runs before every COMMIT that tallied anything, and
 * before a recount or a check reads the tables inside a write. The tallies are written and set
 * aside; if the savepoint they were written in rolls back (a time zone change's recount that
 * fails), SQLite takes the rows back and the tallies return, to be written at the COMMIT.
 */
export function writeTallies(db: Db): void {
  const tables = pending.get(db);
  if (!tables) return;
  pending.delete(db);
  for (const [target, tallies] of tables) for (const tally of tallies.values()) writeTally(db, target, tally);
  onRollback(db, () => restore(db, tables));
}

/** Puts tallies that were written back among the pending ones (their rows were rolled back). */
function restore(db: Db, written: Map<Table, Map<string, Tally>>): void {
  const tables = pending.get(db);
  if (!tables) {
    pending.set(db, written);
    return;
  }
  for (const [target, tallies] of written) {
    const current = tables.get(target);
    if (!current) {
      tables.set(target, tallies);
      continue;
    }
    for (const [key, tally] of tallies) {
      const same = current.get(key);
      if (!same) current.set(key, tally);
      else tally.values.forEach((value, i) => { same.values[i]! += value; });
    }
  }
}

/** What one change adds to a row: [column index, delta] pairs. */
type Deltas = readonly (readonly [number, number])[];

/** The transaction's tally of one row, made when it has none. */
function tallyOf(db: Db, target: Table, keys: string[]): Tally {
  let tables = pending.get(db);
  if (!tables) {
    // Outside a transaction beforeCommit would run the write at once, before this tally exists: the figures would be lost.
    if (!db.inTransaction) throw new Error('daily figures are counted inside the transaction of the change they count');
    const created = new Map<Table, Map<string, Tally>>();
    tables = created;
    pending.set(db, created);
    // Written before the COMMIT; gone if the savepoint (or transaction) it began in rolls back,
    // since every tally it holds began there too.
    beforeCommit(db, 'daily figures', () => writeTallies(db));
    onRollback(db, () => {
      if (pending.get(db) === created) pending.delete(db);
    });
  }
  let tallies = tables.get(target);
  if (!tallies) {
    tallies = new Map();
    tables.set(target, tallies);
  }
  const key = keys.join('\u0000');
  let tally = tallies.get(key);
  if (!tally) {
    tally = { keys, values: target.columns.map(() => 0) };
    tallies.set(key, tally);
  }
  return tally;
}

/**
 * Adds `deltas` to one row's tally, taken back if the innermost savepoint rolls back: from the
 * row's tally as it is then (looked up again, since a recount may have written and restored it).
 */
function add(db: Db, target: Table, keys: string[], deltas: Deltas): void {
  const { values } = tallyOf(db, target, keys);
  for (const [column, delta] of deltas) values[column]! += delta;
  onRollback(db, () => {
    // Never made here: a rollback in progress must not start a tally (nor ask for a write).
    const tally = pending.get(db)?.get(target)?.get(keys.join('\u0000'));
    if (tally) for (const [column, delta] of deltas) tally.values[column]! -= delta;
  });
}

const COLUMN_INDEX = Object.fromEntries(FIGURE_COLUMNS.map((column, i) => [column, i])) as Record<(typeof FIGURE_COLUMNS)[number], number>;
const ORDER_INDEX = Object.fromEntries(ORDER_COLUMNS.map((column, i) => [column, i])) as Record<OrderColumn, number>;
const ACTIVE = COLUMN_INDEX.active_members;
const LAST_ACTIVE = COLUMN_INDEX.last_active;

export const dayOf = (db: Db, projectId: string, at: Date): string => localDate(at, projectTimeZone(db, projectId));

const dayRow = (projectId: string, day: string) => [projectId, day, 'day', ''];

const addToDay = (db: Db, projectId: string, day: string, column: DayColumn, delta: number) =>
  add(db, DAYS, dayRow(projectId, day), [[COLUMN_INDEX[column], delta]]);

const addToItem = (db: Db, projectId: string, kind: ItemKind, day: string, item: string, points: number) =>
  add(db, DAYS, [projectId, day, kind, item], [[COLUMN_INDEX.count, 1], [COLUMN_INDEX.points, points]]);

export const addToOrders = (db: Db, projectId: string, day: string, segment: Segment, column: OrderColumn, delta: number) =>
  add(db, ORDERS, [projectId, day, segment], [[ORDER_INDEX[column], delta]]);

/**
 * The flow a ledger row counts in (docs/admin.md, the points table): awards (and points imported
 * from another programme) are earned; any other
 * positive row gives spent points back; a negative row is expired, redeemed (reward claims, game
 * costs) or else takes earned points back (store refunds, deductions). migrations/0034's
 * ledger_flows says the same in SQL.
 */
export function flowOf(amount: number, type: string): DayColumn {
  if (amount > 0) return type === 'EARNED' || type === 'IMPORTED' ? 'earned' : 'redeemed_reimbursed';
  if (type === 'EXPIRED') return 'expired';
  return type === 'REDEEMED' || type === 'SPENT' ? 'redeemed' : 'earned_reversed';
}

/** Earning or spending (an award, a claim, a game's cost): what makes a member active on a day. */
const isActivity = (flow: DayColumn) => flow === 'earned' || flow === 'redeemed';

export interface CountedPosting {
  amount: number;
  type: string;
  source: string;
}

/**
 * Counts a ledger row (postToLedger calls this for every row it writes), given the member as read
 * in the same transaction. Returns the member's latest day of activity after it, which the caller
 * writes to the member's row with the balance: a member's first activity on a later day counts
 * them active that day and moves their latest day (and its count) there.
 */
export function countPosting(db: Db, member: { project_id: string; active_day: string | null }, posting: CountedPosting, at: Date): string | null {
  const projectId = member.project_id;
  const day = dayOf(db, projectId, at);
  const flow = flowOf(posting.amount, posting.type);
  const latest = member.active_day;
  // An import is not the member's doing: it makes no one active.
  const newlyActive = isActivity(flow) && posting.type !== 'IMPORTED' && (latest === null || day > latest);
  const amount: [number, number] = [COLUMN_INDEX[flow], Math.abs(posting.amount)];
  add(db, DAYS, dayRow(projectId, day), newlyActive ? [amount, [ACTIVE, 1], [LAST_ACTIVE, 1]] : [amount]);
  if (flow === 'earned') addToItem(db, projectId, 'source', day, posting.source, posting.amount);
  if (!newlyActive) return latest;
  if (latest !== null) addToDay(db, projectId, latest, 'last_active', -1);
  return day;
}

export const countNewMember = (db: Db, projectId: string, at: Date) => addToDay(db, projectId, dayOf(db, projectId, at), 'new_members', 1);

export const countErasure = (db: Db, projectId: string, at: Date) => addToDay(db, projectId, dayOf(db, projectId, at), 'erased_members', 1);

/** A reward claimed, with the points spent on it (0 for a promo code's reward). */
export const countClaim = (db: Db, projectId: string, rewardId: string, pointsSpent: number, at: Date) =>
  addToItem(db, projectId, 'reward', dayOf(db, projectId, at), rewardId, pointsSpent);

/** A quest completed, with the points it paid. */
export const countCompletion = (db: Db, projectId: string, questId: string, points: number, at: Date) =>
  addToItem(db, projectId, 'quest', dayOf(db, projectId, at), questId, points);
