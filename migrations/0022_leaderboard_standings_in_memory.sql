-- Leaderboard standings move to memory (src/domain/leaderboard/standings.ts). The rank index moved
-- four entries to random pages on every award (and 0020's buckets a few more rows), which each
-- group commit wrote and fsynced: over 100,000 members that was three quarters of an award's cost
-- (bench/README.md). leaderboard_totals stays the record of every total; the server reads a
-- board's totals into memory when it is first shown and keeps them there as awards commit.
DROP INDEX leaderboard_totals_rank;
DROP TABLE leaderboard_buckets;
-- Loading one board into memory, and pruning the boards of past periods. Only a member's first
-- award of a period adds an entry: later awards change points, which this index does not hold.
CREATE INDEX leaderboard_totals_board ON leaderboard_totals(project_id, board, member_id);
-- How many times leaderboard totals were written, by any process: a server whose count differs
-- from the database's (the CLI awarded points meanwhile) reloads its standings.
CREATE TABLE leaderboard_writes (
  id     INTEGER PRIMARY KEY CHECK (id = 1),
  writes INTEGER NOT NULL
);
INSERT INTO leaderboard_writes (id, writes) VALUES (1, 0);
