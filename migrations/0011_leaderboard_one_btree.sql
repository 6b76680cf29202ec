-- Leaderboard totals in ONE b-tree instead of two. Every award moved four entries in
-- leaderboard_totals' primary key (member_id, period, period_key) AND in its rank index: two
-- b-trees, the first at a random page per award (the member's rows), which doubled the pages each
-- group commit wrote to the WAL. Now the table's primary key IS the rank order, and each member's
-- latest entry per period (its key, points and time: what locates the entry in that order) is kept
-- on the member's own row, which every award rewrites anyway.
CREATE TABLE leaderboard_totals_v2 (
  member_id   INTEGER NOT NULL REFERENCES members(id),
  period      TEXT NOT NULL CHECK (period = 'all' OR period = 'month' OR period = 'week' OR period = 'day'),
  period_key  TEXT NOT NULL,
  project_id  TEXT NOT NULL REFERENCES projects(id),
  points      INTEGER NOT NULL CHECK (points > 0),
  reached_at  TEXT NOT NULL,
  -- GET /leaderboard: the top N of one period, most points first, who got there first on a tie;
  -- a member's rank (the rows ahead of theirs, a range of this key); and an award moving the
  -- member's entry (found by the full key from members.leaderboard_entries).
  PRIMARY KEY (project_id, period, period_key, points DESC, reached_at, member_id)
) WITHOUT ROWID;
INSERT INTO leaderboard_totals_v2 (member_id, period, period_key, project_id, points, reached_at)
  SELECT member_id, period, period_key, project_id, points, reached_at FROM leaderboard_totals;

-- JSON {"<period>": ["<period_key>", points, "<reached_at>"]}: the member's latest entry of each
-- period they earned in. NULL: no entry yet.
ALTER TABLE members ADD COLUMN leaderboard_entries TEXT;
UPDATE members SET leaderboard_entries = (
  SELECT json_group_object(t.period, json_array(t.period_key, t.points, t.reached_at)) FROM leaderboard_totals t
  WHERE t.member_id = members.id
    AND t.period_key = (SELECT max(u.period_key) FROM leaderboard_totals u WHERE u.member_id = t.member_id AND u.period = t.period))
WHERE id IN (SELECT member_id FROM leaderboard_totals);

DROP TABLE leaderboard_totals;
ALTER TABLE leaderboard_totals_v2 RENAME TO leaderboard_totals;
