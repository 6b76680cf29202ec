-- Leaderboard totals move onto the member's row. An award already rewrites that row (its
-- balance); a total in leaderboard_totals sat on another random page, which every group commit
-- wrote, fsynced and later checkpointed: a third of an award's pages (bench/README.md). Boards are
-- ranked in memory since 0022, so the totals need no index of their own.
--
-- The all-time total is total_points_earned (every award adds to both), reached at
-- all_reached_at. For the month, week and day, a member keeps the board of their latest award in
-- that kind of period (its number as in 0011: period * 10^8 + the period's first day as YYYYMMDD)
-- with the points earned and when they were reached; an award in a later period starts it
-- afresh. Times are milliseconds since 1970; 0 means none. Older periods, which no leaderboard
-- shows, are gone, so nothing needs pruning.
ALTER TABLE members ADD COLUMN all_reached_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN month_board INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN month_points INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN month_reached_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN week_board INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN week_points INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN week_reached_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN day_board INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN day_points INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN day_reached_at INTEGER NOT NULL DEFAULT 0;

UPDATE members SET all_reached_at = t.reached_at
  FROM leaderboard_totals t WHERE t.member_id = members.id AND t.board = 0;
-- The latest board of each kind: with max(), SQLite takes the other columns from the row holding the maximum.
UPDATE members SET month_board = t.board, month_points = t.points, month_reached_at = t.reached_at
  FROM (SELECT member_id, max(board) AS board, points, reached_at FROM leaderboard_totals
    WHERE board BETWEEN 100000000 AND 199999999 GROUP BY member_id) t WHERE t.member_id = members.id;
UPDATE members SET week_board = t.board, week_points = t.points, week_reached_at = t.reached_at
  FROM (SELECT member_id, max(board) AS board, points, reached_at FROM leaderboard_totals
    WHERE board BETWEEN 200000000 AND 299999999 GROUP BY member_id) t WHERE t.member_id = members.id;
UPDATE members SET day_board = t.board, day_points = t.points, day_reached_at = t.reached_at
  FROM (SELECT member_id, max(board) AS board, points, reached_at FROM leaderboard_totals
    WHERE board BETWEEN 300000000 AND 399999999 GROUP BY member_id) t WHERE t.member_id = members.id;

DROP TABLE leaderboard_totals;
