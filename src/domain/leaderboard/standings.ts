import type { Db } from '../../db/connection.ts';
import { beforeCommit, onRollback } from '../../db/transaction-hooks.ts';
import { stmt } from '../../db/statements.ts';

/**
 * Leaderboard standings, kept in memory (migrations/0022). The members' rows hold every total
 * (migrations/0024); ordering them in a SQLite index cost each award four index entries on random
 * pages, written and fsynced by every commit. Here a board is read from the members' rows the first
 * time it is shown, then each award updates its member as it is written (and back if it rolls back).
 *
 * One board: each member's total and when they reached it, in arrays indexed by member row id (16
 * bytes a member). A rank or a top list reads the whole array (a fraction of a millisecond per
 * 100,000 members), so an award only writes two numbers.
 */
export class Board {
  #points = new Float64Array(1024);
  #reachedAt = new Float64Array(1024);

  constructor(readonly number: number) {}

  /** Adds points reached at `at`; returns what the member had before (0 points: not on the board). */
  add(memberId: number, amount: number, at: number): { points: number; reachedAt: number } {
    this.#fit(memberId);
    const before = { points: this.#points[memberId]!, reachedAt: this.#reachedAt[memberId]! };
    this.set(memberId, before.points + amount, at);
    return before;
  }

  /** Puts the member at `points` (0: off the board). */
  set(memberId: number, points: number, reachedAt: number): void {
    this.#fit(memberId);
    this.#points[memberId] = points;
    this.#reachedAt[memberId] = reachedAt;
  }

  #fit(memberId: number): void {
    if (memberId < this.#points.length) return;
    const length = Math.max(memberId + 1, this.#points.length * 2);
    const points = new Float64Array(length);
    const reachedAt = new Float64Array(length);
    points.set(this.#points);
    reachedAt.set(this.#reachedAt);
    this.#points = points;
    this.#reachedAt = reachedAt;
  }

  /**
   * The member's rank (1 is first) and points, or undefined when they are not on the board. Ahead
   * of them: more points, or as many reached earlier, or reached at the same time with a lower
   * member id (the top list's order).
   */
  rank(memberId: number): { rank: number; points: number } | undefined {
    const points = this.#points[memberId] ?? 0;
    if (points <= 0) return undefined;
    const reachedAt = this.#reachedAt[memberId]!;
    const all = this.#points;
    const times = this.#reachedAt;
    let ahead = 0;
    for (let other = 0; other < all.length; other++) {
      const theirs = all[other]!;
      if (theirs > points || (theirs === points && (times[other]! < reachedAt || (times[other] === reachedAt && other < memberId)))) ahead++;
    }
    return { rank: ahead + 1, points };
  }

  /** The first `limit` members in rank order. */
  top(limit: number): { memberId: number; points: number }[] {
    const all = this.#points;
    const times = this.#reachedAt;
    // Ahead: the same order as rank().
    const before = (a: number, b: number) => all[a]! > all[b]! || (all[a] === all[b] && (times[a]! < times[b]! || (times[a] === times[b] && a < b)));
    const kept: number[] = [];
    // Once `limit` are kept, fewer points than the last of them can never enter: most members stop at that test.
    let least = 0;
    for (let memberId = 0; memberId < all.length; memberId++) {
      const points = all[memberId]!;
      if (points <= 0 || points < least) continue;
      if (kept.length === limit && !before(memberId, kept[limit - 1]!)) continue;
      let low = 0;
      let high = kept.length;
      while (low < high) {
        const middle = (low + high) >> 1;
        if (before(kept[middle]!, memberId)) low = middle + 1;
        else high = middle;
      }
      kept.splice(low, 0, memberId);
      if (kept.length > limit) kept.pop();
      if (kept.length === limit) least = all[kept[limit - 1]!]!;
    }
    return kept.map((memberId) => ({ memberId, points: all[memberId]! }));
  }
}

/**
 * A connection's boards, by project and kind of period (one board each: the current day, week,
 * month, all time), valid while leaderboard_writes counts the writes this connection has seen.
 */
interface Standings {
  writes: number;
  boards: Map<string, Board>;
}

const cache = new WeakMap<Db, Standings>();

const keyOf = (projectId: string, board: number) => `${projectId}:${Math.floor(board / 100_000_000)}`;

const writesIn = (db: Db) => stmt<number>(db, 'SELECT writes FROM leaderboard_writes').pluck().get()!;

/**
 * A board's totals, on the members' rows (migrations/0024): all time (board 0) is every member who
 * earned anything; a month, week or day board is the members whose latest award fell in it.
 */
function totalsOn(db: Db, projectId: string, board: number): IterableIterator<[number, number, number]> {
  const kind = (['all', 'month', 'week', 'day'] as const)[Math.floor(board / 100_000_000)]!;
  if (kind === 'all') {
    return stmt<[number, number, number]>(db, 'SELECT id, total_points_earned, all_reached_at FROM members WHERE project_id = ? AND total_points_earned > 0')
      .raw(true).iterate(projectId);
  }
  return stmt<[number, number, number]>(db, `SELECT id, ${kind}_points, ${kind}_reached_at FROM members WHERE project_id = ? AND ${kind}_board = ?`)
    .raw(true).iterate(projectId, board);
}

/**
 * The board numbered `board` of a project, read from the members' rows unless this connection
 * already holds it and no other process wrote totals since (the CLI awarding points while the
 * server runs makes the server read its boards again). Reading goes through all the project's
 * members, once per board and period; per 100,000 members on the bench machine, about 35 ms for a
 * period nobody has earned in yet and 100–200 ms when everyone has (as long as reading
 * leaderboard_totals took before 0024). An index by board would cost a member's first award of
 * each period three more pages.
 */
export function boardStandings(db: Db, projectId: string, board: number): Board {
  const writes = writesIn(db);
  let standings = cache.get(db);
  if (standings?.writes !== writes) {
    standings = { writes, boards: new Map() };
    cache.set(db, standings);
  }
  const key = keyOf(projectId, board);
  let loaded = standings.boards.get(key);
  if (loaded?.number === board) return loaded;
  loaded = new Board(board);
  for (const [memberId, points, reachedAt] of totalsOn(db, projectId, board)) loaded.set(memberId, points, reachedAt);
  standings.boards.set(key, loaded);
  // Read inside a transaction, it may hold that transaction's writes: if they roll back, so does the board.
  const { boards } = standings;
  const read = loaded;
  onRollback(db, () => {
    if (boards.get(key) === read) boards.delete(key);
  });
  return loaded;
}

/** Bumps leaderboard_writes, and this connection's count of its own writes with it (a rollback takes both back). */
function countWrites(db: Db): void {
  stmt(db, 'UPDATE leaderboard_writes SET writes = writes + 1').run();
  const standings = cache.get(db);
  if (!standings) return;
  standings.writes++;
  onRollback(db, () => standings.writes--);
}

/**
 * Moves the member's totals on the boards this connection holds, in the writing transaction (a
 * rollback moves them back), and counts the transaction's writes once, just before its COMMIT:
 * other processes only need to see that the count moved, and a group commit of many awards then
 * writes the counter once.
 */
export function recordAward(db: Db, projectId: string, boards: readonly number[], memberId: number, amount: number, at: number): void {
  beforeCommit(db, 'count leaderboard writes', () => countWrites(db));
  const standings = cache.get(db);
  if (!standings) return;
  for (const number of boards) {
    const board = standings.boards.get(keyOf(projectId, number));
    if (board?.number !== number) continue;
    const before = board.add(memberId, amount, at);
    onRollback(db, () => board.set(memberId, before.points, before.reachedAt));
  }
}
