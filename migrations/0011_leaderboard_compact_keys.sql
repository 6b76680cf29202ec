-- Leaderboard totals with compact keys. Every award moves four entries of the rank index, and its
-- keys were mostly text (project, period, period key, an ISO time): each of the b-tree's
-- comparisons decoded and compared them. A period and its key are now one number (the board) and
-- the time is milliseconds, which made the four upserts about a third cheaper in a benchmark of
-- 100,000 members (see bench/README.md).
--
-- board: 0 for all time; otherwise period * 100,000,000 + the period's start as YYYYMMDD, with
-- period 1 = month (its first day), 2 = week (its Monday), 3 = day: 3_20261123 is 23 November
-- 2026, in the project's time zone at the time of the award. reached_at is when the member reached
-- `points` (the tie-breaker), in milliseconds since 1970.
CREATE TABLE leaderboard_totals_v2 (
  member_id   INTEGER NOT NULL REFERENCES members(id),
  board       INTEGER NOT NULL,
  project_id  TEXT NOT NULL REFERENCES projects(id),
  points      INTEGER NOT NULL CHECK (points > 0),
  reached_at  INTEGER NOT NULL,
  PRIMARY KEY (member_id, board)
) WITHOUT ROWID;
INSERT INTO leaderboard_totals_v2 (member_id, board, project_id, points, reached_at)
  SELECT member_id,
    CASE period WHEN 'all' THEN 0
      WHEN 'month' THEN 100000000 + CAST(replace(period_key, '-', '') AS INTEGER) * 100 + 1
      WHEN 'week' THEN 200000000 + CAST(replace(period_key, '-', '') AS INTEGER)
      ELSE 300000000 + CAST(replace(period_key, '-', '') AS INTEGER) END,
    project_id, points, CAST(strftime('%s', reached_at) AS INTEGER) * 1000 + CAST(substr(reached_at, 21, 3) AS INTEGER)
  FROM leaderboard_totals;
DROP TABLE leaderboard_totals;
ALTER TABLE leaderboard_totals_v2 RENAME TO leaderboard_totals;
-- GET /leaderboard: the top N of one board, most points first, who got there first on a tie; and
-- a member's rank (count of the rows ahead of theirs, a range of the same index).
CREATE INDEX leaderboard_totals_rank ON leaderboard_totals(project_id, board, points DESC, reached_at, member_id);
