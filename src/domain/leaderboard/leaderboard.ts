import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { localDate, projectTimeZone, shiftDate, weekStart } from '../project/calendar.ts';
import { requireMember } from '../members/members.ts';

/**
 * Leaderboards rank members by points EARNED in a period (awards only: spending, deductions and
 * expiry never lower a rank). Periods are calendar periods in the project's time zone: the day,
 * the week from Monday, the month, and all time. Every award adds to the member's four running
 * totals (leaderboard_totals), so a leaderboard reads the top of one index, whatever the size of
 * the ledger.
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
 * The bucket of a total (migrations/0020): a total under 32 is its own bucket; above, each
 * doubling of points is 32 buckets of equal width. A rank counts whole buckets ahead of a member.
 */
export function bucketOf(points: number): number {
  if (points < 32) return points;
  let e = Math.floor(Math.log2(points));
  if (2 ** e > points) e--;
  else if (2 ** (e + 1) <= points) e++;
  return (e - 4) * 32 + (Math.floor(points / 2 ** (e - 5)) % 32);
}

/** The smallest total in a bucket. */
export function bucketStart(bucket: number): number {
  if (bucket < 32) return bucket;
  return (32 + (bucket % 32)) * 2 ** (Math.floor(bucket / 32) - 1);
}

/**
 * Adds an award to the member's totals for the current day, week, month and all time, in the
 * award's transaction: one statement of four upserts. `reached_at` becomes the award's time: on a
 * tie, whoever reached the total first ranks higher. A total that crosses into another bucket of
 * points moves the boards' bucket counts with it. postToLedger() calls this for every positive amount.
 */
export function addToLeaderboards(db: Db, projectId: string, memberId: number, amount: number, now: Date): void {
  const board = boards(db, projectId, now);
  const before = new Map(stmt<[number, number]>(db, 'SELECT board, points FROM leaderboard_totals WHERE member_id = ? AND board IN (?, ?, ?, ?)')
    .raw(true).all(memberId, board.all, board.month, board.week, board.day));
  stmt(db, `INSERT INTO leaderboard_totals (member_id, board, project_id, points, reached_at)
    VALUES (@memberId, 0, @projectId, @amount, @at), (@memberId, @month, @projectId, @amount, @at),
      (@memberId, @week, @projectId, @amount, @at), (@memberId, @day, @projectId, @amount, @at)
    ON CONFLICT (member_id, board) DO UPDATE SET points = points + excluded.points, reached_at = excluded.reached_at`)
    .run({ memberId, projectId, amount, at: now.getTime(), month: board.month, week: board.week, day: board.day });
  for (const number of [board.all, board.month, board.week, board.day]) {
    const was = before.get(number) ?? 0;
    const bucket = bucketOf(was + amount);
    if (was > 0 && bucketOf(was) === bucket) continue;
    if (was > 0) {
      stmt(db, 'UPDATE leaderboard_buckets SET members = members - 1 WHERE project_id = ? AND board = ? AND bucket = ?').run(projectId, number, bucketOf(was));
    }
    stmt(db, `INSERT INTO leaderboard_buckets (project_id, board, bucket, members) VALUES (?, ?, ?, 1)
      ON CONFLICT (project_id, board, bucket) DO UPDATE SET members = members + 1`).run(projectId, number, bucket);
  }
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
      // A board's bucket counts are a few dozen rows: they go with its first batch, as no rank reads them any more.
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
