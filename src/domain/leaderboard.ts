import type { Db } from '../db/connection.ts';
import { stmt } from '../db/statements.ts';
import { localDate, projectTimeZone, weekStart } from './calendar.ts';
import { requireMember } from './members.ts';

/**
 * Leaderboards rank members by points EARNED in a period (awards only: spending, deductions and
 * expiry never lower a rank). Periods are calendar periods in the project's time zone: the day,
 * the week from Monday, the month, and all time. Every award adds to the member's four running
 * totals (leaderboard_totals), so a leaderboard reads the top of one index, whatever the size of
 * the ledger.
 */
export const PERIODS = ['all', 'month', 'week', 'day'] as const;
export type Period = (typeof PERIODS)[number];

/** The key of each period holding `now`: '' (all), YYYY-MM, the week's Monday YYYY-MM-DD, YYYY-MM-DD. */
function periodKeys(db: Db, projectId: string, now: Date): Record<Period, string> {
  const day = localDate(now, projectTimeZone(db, projectId));
  // Awards come in runs on the same day: derive the keys once per day seen.
  if (recentKeys?.day !== day) recentKeys = { all: '', month: day.slice(0, 7), week: weekStart(day), day };
  return recentKeys;
}
let recentKeys: Record<Period, string> | undefined;

/**
 * Adds an award to the member's totals for the current day, week, month and all time, in the
 * award's transaction: one statement of four upserts. `reached_at` becomes the award's time: on a
 * tie, whoever reached the total first ranks higher. post() calls this for every positive amount.
 */
export function addToLeaderboards(db: Db, projectId: string, memberId: number, amount: number, now: Date): void {
  const keys = periodKeys(db, projectId, now);
  const at = now.toISOString();
  stmt(db, `INSERT INTO leaderboard_totals (member_id, period, period_key, project_id, points, reached_at)
    VALUES (@memberId, 'all', '', @projectId, @amount, @at), (@memberId, 'month', @month, @projectId, @amount, @at),
      (@memberId, 'week', @week, @projectId, @amount, @at), (@memberId, 'day', @day, @projectId, @amount, @at)
    ON CONFLICT (member_id, period, period_key) DO UPDATE SET points = points + excluded.points, reached_at = excluded.reached_at`)
    .run({ memberId, projectId, amount, at, month: keys.month, week: keys.week, day: keys.day });
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
  const key = periodKeys(db, projectId, now)[query.period];
  const rows = stmt<{ externalId: string; name: string | null; points: number }>(db, `SELECT m.external_id AS externalId, m.name, t.points
    FROM leaderboard_totals t JOIN members m ON m.id = t.member_id
    WHERE t.project_id = ? AND t.period = ? AND t.period_key = ? ORDER BY t.points DESC, t.reached_at, t.member_id LIMIT ?`)
    .all(projectId, query.period, key, query.limit);
  return { period: query.period, entries: rows.map((row, index) => ({ rank: index + 1, ...row })) };
}

/** The member's place in one period: rank null (and 0 points) when they earned nothing in it. */
export interface MemberRank {
  rank: number | null;
  points: number;
}

function rankIn(db: Db, projectId: string, memberId: number, period: Period, key: string): MemberRank {
  const own = stmt<{ points: number; reached_at: string }>(db, `SELECT points, reached_at FROM leaderboard_totals
    WHERE member_id = ? AND period = ? AND period_key = ?`).get(memberId, period, key);
  if (!own) return { rank: null, points: 0 };
  // Those ahead: more points, or as many reached earlier (member id breaks an exact tie, as in the list).
  const ahead = stmt<number>(db, `SELECT
    (SELECT count(*) FROM leaderboard_totals WHERE project_id = @projectId AND period = @period AND period_key = @key AND points > @points) +
    (SELECT count(*) FROM leaderboard_totals WHERE project_id = @projectId AND period = @period AND period_key = @key AND points = @points
      AND (reached_at < @reachedAt OR (reached_at = @reachedAt AND member_id < @memberId)))`).pluck()
    .get({ projectId, period, key, points: own.points, reachedAt: own.reached_at, memberId })!;
  return { rank: ahead + 1, points: own.points };
}

/** GET /leaderboard/members/{externalId}: the member's rank in each period, or only in `period`. */
export function memberRanks(db: Db, projectId: string, externalId: string, period: Period | undefined, now: Date) {
  const member = requireMember(db, projectId, externalId);
  const keys = periodKeys(db, projectId, now);
  const periods = period === undefined ? PERIODS : [period];
  return {
    externalId: member.external_id,
    name: member.name,
    ranks: Object.fromEntries(periods.map((p) => [p, rankIn(db, projectId, member.id, p, keys[p])])) as Partial<Record<Period, MemberRank>>,
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
    member: rankIn(db, projectId, member.id, query.period, periodKeys(db, projectId, now)[query.period]),
  };
}
