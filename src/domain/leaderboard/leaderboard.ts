import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { localDate, projectTimeZone, weekStart } from '../project/calendar.ts';
import { requireMember } from '../members/members.ts';
import { boardStandings, recordAward } from './standings.ts';

/**
 * Leaderboards rank members by points EARNED in a period (awards only: spending, deductions and
 * expiry never lower a rank). Periods are calendar periods in the project's time zone: the day,
 * the week from Monday, the month, and all time. Every award adds to the running totals on the
 * member's row (migrations/0024), and a board's order is kept in memory (standings.ts), so a
 * leaderboard never sums the ledger, whatever its size.
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
 * Adds an award to the member's totals for the current day, week, month and all time, in the
 * award's transaction, on the member's row that the award has just written (the all-time points are
 * total_points_earned). A total of an earlier period starts afresh. The reached time becomes the
 * award's: on a tie, whoever reached the total first ranks higher. The boards held in memory move
 * with it (standings.ts). postToLedger() calls this for every positive amount, after it added the
 * amount to total_points_earned; for points brought over from another programme only the all-time
 * total moves (`periods`).
 */
export function addToLeaderboards(db: Db, projectId: string, memberId: number, amount: number, now: Date,
  periods: 'every period' | 'all-time' = 'every period'): void {
  const board = boards(db, projectId, now);
  if (periods === 'all-time') {
    stmt(db, 'UPDATE members SET all_reached_at = ? WHERE id = ?').run(now.getTime(), memberId);
    recordAward(db, projectId, [board.all], memberId, amount, now.getTime());
    return;
  }
  // Every right-hand side reads the row as it was before this UPDATE.
  stmt(db, `UPDATE members SET all_reached_at = @at,
      month_points = iif(month_board = @month, month_points, 0) + @amount, month_board = @month, month_reached_at = @at,
      week_points = iif(week_board = @week, week_points, 0) + @amount, week_board = @week, week_reached_at = @at,
      day_points = iif(day_board = @day, day_points, 0) + @amount, day_board = @day, day_reached_at = @at
    WHERE id = @memberId`)
    .run({ memberId, amount, at: now.getTime(), month: board.month, week: board.week, day: board.day });
  recordAward(db, projectId, [board.all, board.month, board.week, board.day], memberId, amount, now.getTime());
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
  const top = boardStandings(db, projectId, boards(db, projectId, now)[query.period]).top(query.limit);
  const member = stmt<{ externalId: string; name: string | null }>(db, 'SELECT external_id AS externalId, name FROM members WHERE id = ?');
  return { period: query.period, entries: top.map(({ memberId, points }, index) => ({ rank: index + 1, ...member.get(memberId)!, points })) };
}

/** The member's place in one period: rank null (and 0 points) when they earned nothing in it. */
export interface MemberRank {
  rank: number | null;
  points: number;
}

const rankIn = (db: Db, projectId: string, memberId: number, board: number): MemberRank =>
  boardStandings(db, projectId, board).rank(memberId) ?? { rank: null, points: 0 };

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
