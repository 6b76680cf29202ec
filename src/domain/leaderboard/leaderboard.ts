import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { localDate, projectTimeZone, shiftDate, weekStart } from '../project/calendar.ts';
import { requireMember } from '../members/members.ts';
import { atomically } from '../../db/transaction.ts';

/**
 * Leaderboards rank members by points EARNED in a period (awards only: spending, deductions and
 * expiry never lower a rank). Periods are calendar periods in the project's time zone: the day,
 * the week from Monday, the month, and all time. Each member has a running total per period
 * (leaderboard_totals), so a leaderboard reads the top of one index, whatever the size of the
 * ledger. The totals follow the ledger (migrations/0020): awards do not write them; catchUpLeaderboards()
 * adds what the ledger gained since it last ran, every second in the background and before every
 * leaderboard read, so what a read shows counts every award committed before it.
 */
export const PERIODS = ['all', 'month', 'week', 'day'] as const;
export type Period = (typeof PERIODS)[number];

const PERIOD_NUMBERS: Record<Period, number> = { all: 0, month: 1, week: 2, day: 3 };

/**
 * The board of each period holding `now`: one number for a period and its key, so the rank index
 * compares integers (migrations/0011). 0 is all time; otherwise period * 10^8 + the period's first
 * day as YYYYMMDD (the month's 1st, the week's Monday, the day) in the project's time zone.
 */
const boardNumber = (period: Period, firstDay: string) => PERIOD_NUMBERS[period] * 100_000_000 + Number(firstDay.replaceAll('-', ''));

function boards(db: Db, projectId: string, now: Date): Record<Period, number> {
  const day = localDate(now, projectTimeZone(db, projectId));
  // Awards come in runs on the same day: derive the boards once per day seen.
  if (recentBoards?.day !== day) {
    recentBoards = {
      day, boards: { all: 0, month: boardNumber('month', `${day.slice(0, 7)}-01`), week: boardNumber('week', weekStart(day)), day: boardNumber('day', day) },
    };
  }
  return recentBoards.boards;
}
let recentBoards: { day: string; boards: Record<Period, number> } | undefined;

/**
 * The bucket of a total (migrations/0020): a total under 16 is its own bucket; above, each
 * doubling of points is 16 buckets of equal width. Ranks count whole buckets ahead of a member.
 */
export function bucketOf(points: number): number {
  if (points < 16) return points;
  let e = Math.floor(Math.log2(points));
  if (2 ** e > points) e--;
  else if (2 ** (e + 1) <= points) e++;
  return (e - 3) * 16 + (Math.floor(points / 2 ** (e - 4)) % 16);
}

/** The smallest total in a bucket. */
export function bucketStart(bucket: number): number {
  if (bucket < 16) return bucket;
  return (16 + (bucket % 16)) * 2 ** (Math.floor(bucket / 16) - 1);
}

/** Ledger rows per catch-up transaction in the background: a pass of this many stays near a few ms (bench/README). */
export const LEADERBOARD_CATCH_UP_BATCH = 1000;

/** Whether the ledger has rows the totals do not count yet: a read, so an idle server opens no transaction for it. */
export const leaderboardsBehind = (db: Db): boolean =>
  stmt<number>(db, 'SELECT coalesce((SELECT max(id) FROM transactions), 0) > (SELECT transaction_id FROM leaderboard_progress)').pluck().get() === 1;

interface Addition {
  memberId: number;
  board: number;
  projectId: string;
  points: number;
  at: number;
}

/**
 * Adds the awards (positive ledger rows) written since the last pass to their members' totals,
 * up to `limit` ledger rows (-1: all), and moves the rank buckets with them. Sums per member and
 * board first and writes in key order, so a page is written once however many awards it holds.
 * `reached_at` becomes the time of the member's last award counted: on a tie, whoever reached the
 * total first ranks higher. A period is the one holding the award's time in the project's time
 * zone when the pass runs. Returns how many ledger rows it read.
 */
export function catchUpLeaderboards(db: Db, limit: number): number {
  return atomically(db, () => {
    const after = stmt<number>(db, 'SELECT transaction_id FROM leaderboard_progress').pluck().get()!;
    const rows = stmt<{ id: number; project_id: string; member_id: number; amount: number; created_at: string }>(db,
      'SELECT id, project_id, member_id, amount, created_at FROM transactions WHERE id > ? ORDER BY id LIMIT ?').all(after, limit);
    if (rows.length === 0) return 0;
    const additions = new Map<string, Addition>();
    for (const row of rows) {
      if (row.amount <= 0) continue;
      const at = new Date(row.created_at);
      const board = boards(db, row.project_id, at);
      for (const number of [board.all, board.month, board.week, board.day]) {
        const key = `${row.member_id}:${number}`;
        const addition = additions.get(key);
        if (addition) {
          addition.points += row.amount;
          addition.at = at.getTime();
        } else additions.set(key, { memberId: row.member_id, board: number, projectId: row.project_id, points: row.amount, at: at.getTime() });
      }
    }
    const buckets = new Map<string, { projectId: string; board: number; bucket: number; members: number }>();
    const move = (addition: Addition, points: number, by: number) => {
      const bucket = bucketOf(points);
      const key = `${addition.projectId}:${addition.board}:${bucket}`;
      const entry = buckets.get(key) ?? { projectId: addition.projectId, board: addition.board, bucket, members: 0 };
      entry.members += by;
      buckets.set(key, entry);
    };
    const add = stmt<number>(db, `INSERT INTO leaderboard_totals (member_id, board, project_id, points, reached_at)
      VALUES (@memberId, @board, @projectId, @points, @at)
      ON CONFLICT (member_id, board) DO UPDATE SET points = points + excluded.points, reached_at = excluded.reached_at
      RETURNING points`).pluck();
    const inKeyOrder = [...additions.values()].sort((a, b) => a.memberId - b.memberId || a.board - b.board);
    for (const addition of inKeyOrder) {
      const total = add.get(addition)!;
      const before = total - addition.points;
      if (before > 0 && bucketOf(before) === bucketOf(total)) continue;
      if (before > 0) move(addition, before, -1);
      move(addition, total, 1);
    }
    // A bucket that loses members exists already; the CHECK (members >= 0) would refuse a negative insert, even one that becomes an update.
    const count = stmt(db, `INSERT INTO leaderboard_buckets (project_id, board, bucket, members) VALUES (@projectId, @board, @bucket, @members)
      ON CONFLICT (project_id, board, bucket) DO UPDATE SET members = members + excluded.members`);
    const uncount = stmt(db, 'UPDATE leaderboard_buckets SET members = members + @members WHERE project_id = @projectId AND board = @board AND bucket = @bucket');
    for (const entry of buckets.values()) {
      if (entry.members > 0) count.run(entry);
      else if (entry.members < 0) uncount.run(entry);
    }
    stmt(db, 'UPDATE leaderboard_progress SET transaction_id = ?').run(rows.at(-1)!.id);
    return rows.length;
  });
}

/** The first day of the month before the one holding `day` (YYYY-MM-DD). */
function previousMonth(day: string): string {
  const [year, month] = day.split('-').map(Number) as [number, number];
  return month === 1 ? `${year - 1}-12-01` : `${year}-${String(month - 1).padStart(2, '0')}-01`;
}

/**
 * Rows per pruning transaction. A board's rows are spread over the whole primary key (one per
 * member), so each deleted row dirties its own page: 100 keep a batch near 5 ms (bench/README).
 */
export const LEADERBOARD_PRUNE_BATCH = 100;

/**
 * Retention: every project keeps all-time totals and, of each kind (day, week, month), the current
 * period and the one before it (in the project's time zone). Older boards no leaderboard shows any
 * more; this deletes up to `limit` of their rows and returns how many it deleted.
 */
export function pruneLeaderboards(db: Db, now: Date, limit: number): number {
  let removed = 0;
  for (const projectId of stmt<string>(db, 'SELECT id FROM projects').pluck().all()) {
    const day = localDate(now, projectTimeZone(db, projectId));
    const oldestKept = { day: shiftDate(day, -1), week: shiftDate(weekStart(day), -7), month: previousMonth(day) };
    for (const period of ['day', 'week', 'month'] as const) {
      if (removed >= limit) return removed;
      // Boards of one kind are the numbers between kind * 10^8 and the oldest kept one (a range of the rank index).
      const range = [projectId, PERIOD_NUMBERS[period] * 100_000_000, boardNumber(period, oldestKept[period])] as const;
      removed += stmt(db, `DELETE FROM leaderboard_totals WHERE (member_id, board) IN (SELECT member_id, board FROM leaderboard_totals
        WHERE project_id = ? AND board > ? AND board < ? LIMIT ?)`).run(...range, limit - removed).changes;
      // A board's buckets are a few dozen rows: they go with its first batch, as no rank reads them any more.
      stmt(db, 'DELETE FROM leaderboard_buckets WHERE project_id = ? AND board > ? AND board < ?').run(...range);
    }
  }
  return removed;
}

export interface LeaderboardEntry {
  rank: number;
  externalId: string;
  /** null when the member has none, or was erased (an erased member's externalId is their anonymous id). */
  name: string | null;
  points: number;
}

/** GET /leaderboard: the top `limit` members of the period holding `now`. */
export function leaderboard(db: Db, projectId: string, query: { period: Period; limit: number }, now: Date): { period: Period; entries: LeaderboardEntry[] } {
  catchUpLeaderboards(db, -1);
  const board = boards(db, projectId, now)[query.period];
  const rows = stmt<{ externalId: string; name: string | null; points: number }>(db, `SELECT m.external_id AS externalId, m.name, t.points
    FROM leaderboard_totals t JOIN members m ON m.id = t.member_id
    WHERE t.project_id = ? AND t.board = ? ORDER BY t.points DESC, t.reached_at, t.member_id LIMIT ?`)
    .all(projectId, board, query.limit);
  return { period: query.period, entries: rows.map((row, index) => ({ rank: index + 1, ...row })) };
}

/** The member's place in one period: rank null (and 0 points) when they earned nothing in it. */
export interface MemberRank {
  rank: number | null;
  points: number;
}

function rankIn(db: Db, projectId: string, memberId: number, board: number): MemberRank {
  const own = stmt<{ points: number; reached_at: number }>(db, 'SELECT points, reached_at FROM leaderboard_totals WHERE member_id = ? AND board = ?')
    .get(memberId, board);
  if (!own) return { rank: null, points: 0 };
  // Those ahead: the members of every higher bucket, those of the member's own bucket with more
  // points, and those with as many who reached them earlier (member id breaks an exact tie, as in the list).
  const bucket = bucketOf(own.points);
  const ahead = stmt<number>(db, `SELECT
    (SELECT coalesce(sum(members), 0) FROM leaderboard_buckets WHERE project_id = @projectId AND board = @board AND bucket > @bucket) +
    (SELECT count(*) FROM leaderboard_totals WHERE project_id = @projectId AND board = @board AND points > @points AND points < @nextBucket) +
    (SELECT count(*) FROM leaderboard_totals WHERE project_id = @projectId AND board = @board AND points = @points
      AND (reached_at < @reachedAt OR (reached_at = @reachedAt AND member_id < @memberId)))`).pluck()
    .get({ projectId, board, bucket, nextBucket: bucketStart(bucket + 1), points: own.points, reachedAt: own.reached_at, memberId })!;
  return { rank: ahead + 1, points: own.points };
}

/** GET /leaderboard/members/{externalId}: the member's rank in each period, or only in `period`. */
export function memberRanks(db: Db, projectId: string, externalId: string, period: Period | undefined, now: Date) {
  const member = requireMember(db, projectId, externalId);
  catchUpLeaderboards(db, -1);
  const board = boards(db, projectId, now);
  const periods = period === undefined ? PERIODS : [period];
  return {
    externalId: member.external_id,
    name: member.name,
    ranks: Object.fromEntries(periods.map((p) => [p, rankIn(db, projectId, member.id, board[p])])) as Partial<Record<Period, MemberRank>>,
  };
}

/** What other members see of a name: the first word and the initial of the last ("Ada Lovelace" → "Ada L."). */
export function publicName(name: string | null): string | null {
  const words = name?.trim().split(/\s+/).filter(Boolean) ?? [];
  if (words.length === 0) return null;
  return words.length === 1 ? words[0]! : `${words[0]} ${[...words.at(-1)!][0]!.toUpperCase()}.`;
}

/**
 * The widget's GET /leaderboard: the top of the period, with names shortened and externalIds left
 * out (they are the shop's ids, not for other customers), the member's own row marked, and the
 * member's own rank even when they are below the top.
 */
export function memberLeaderboard(db: Db, projectId: string, externalId: string, query: { period: Period; limit: number }, now: Date) {
  const member = requireMember(db, projectId, externalId);
  const board = leaderboard(db, projectId, query, now);
  return {
    period: board.period,
    entries: board.entries.map((entry) => ({
      rank: entry.rank, name: publicName(entry.name), points: entry.points, isMember: entry.externalId === member.external_id,
    })),
    member: rankIn(db, projectId, member.id, boards(db, projectId, now)[query.period]),
  };
}
