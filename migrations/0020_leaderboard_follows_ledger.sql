-- Leaderboard totals follow the ledger instead of being written by every award. An award used to
-- upsert its member's four totals (all time, month, week, day) and move four entries of the rank
-- index: rows on random pages over all members, dirtied and fsync'd by every group commit. Now a
-- background pass (and every leaderboard read, first) adds the ledger rows written since the last
-- pass, summed per member and board, in one sorted transaction: each page is written once per
-- pass, not once per award.
--
-- The last ledger row (transactions.id) counted in leaderboard_totals. Existing totals already
-- count every row, so counting starts after the newest one.
CREATE TABLE leaderboard_progress (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  transaction_id INTEGER NOT NULL
);
INSERT INTO leaderboard_progress (id, transaction_id) SELECT 1, coalesce(max(id), 0) FROM transactions;

-- How many members of a board have a total in each bucket of points, so a member's rank counts
-- whole buckets ahead (at most ~16 per doubling of points) plus the members of their own bucket,
-- instead of every member ahead. Buckets: a total under 16 is its own bucket; above, each doubling
-- of points is 16 buckets of equal width (a bucket spans at most 1/16 of its points). The primary
-- key serves a member's rank (the buckets above theirs on one board) and the passes' upserts.
CREATE TABLE leaderboard_buckets (
  project_id TEXT NOT NULL,
  board      INTEGER NOT NULL,
  bucket     INTEGER NOT NULL,
  members    INTEGER NOT NULL CHECK (members >= 0),
  PRIMARY KEY (project_id, board, bucket)
) WITHOUT ROWID;
INSERT INTO leaderboard_buckets (project_id, board, bucket, members)
  SELECT project_id, board, CASE WHEN points < 16 THEN points ELSE (e - 3) * 16 + ((points >> (e - 4)) & 15) END, count(*)
  FROM (
    -- e = floor(log2(points)), corrected where the floating-point logarithm rounds across a power of two.
    SELECT project_id, board, points,
      CASE WHEN (1 << l) > points THEN l - 1 WHEN (1 << (l + 1)) <= points THEN l + 1 ELSE l END AS e
    FROM (SELECT project_id, board, points, CAST(log2(points) AS INTEGER) AS l FROM leaderboard_totals)
  )
  GROUP BY 1, 2, 3;
