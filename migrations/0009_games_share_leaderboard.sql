-- Game plays and check-ins, social shares, and the leaderboard's per-period totals.

-- One row per game play or daily check-in. The limit checks (maxPlaysPerUser, dailyPlaysLimit,
-- cooldownMinutes) read a member's plays of one game; local_day is the play's calendar date in
-- the project's time zone when it was played, so "today" needs no time-zone arithmetic in SQL.
CREATE TABLE game_plays (
  id              INTEGER PRIMARY KEY,
  public_id       TEXT NOT NULL,                 -- gpl_…
  project_id      TEXT NOT NULL REFERENCES projects(id),
  game_id         TEXT NOT NULL REFERENCES games(id),
  member_id       INTEGER NOT NULL REFERENCES members(id),
  local_day       TEXT NOT NULL,                 -- YYYY-MM-DD in the project's time zone
  points_spent    INTEGER NOT NULL CHECK (points_spent >= 0),
  prize_index     INTEGER,                       -- into the game's prizes; NULL for a check-in
  prize_name      TEXT,
  prize_value     INTEGER,
  points_awarded  INTEGER NOT NULL CHECK (points_awarded >= 0),
  streak          INTEGER,                       -- check-ins: the streak this check-in reached
  streak_bonus    INTEGER,                       -- check-ins: the bonus points paid, if any
  result          TEXT,                          -- JSON: what the widget animates (segment, reels, dice, grid)
  played_at       TEXT NOT NULL
);
-- Play limits, each read only when the game sets it (covering: no table row is read): the
-- member's plays of the game (maxPlaysPerUser), of it today (dailyPlaysLimit), and the latest
-- play (cooldownMinutes: ORDER BY local_day DESC, played_at DESC LIMIT 1).
CREATE INDEX game_plays_member_game ON game_plays(member_id, game_id, local_day, played_at);

-- One row per rewarded social share.
CREATE TABLE social_shares (
  id              INTEGER PRIMARY KEY,
  public_id       TEXT NOT NULL,                 -- shr_…
  project_id      TEXT NOT NULL REFERENCES projects(id),
  member_id       INTEGER NOT NULL REFERENCES members(id),
  platform        TEXT NOT NULL,
  share_type      TEXT,
  local_day       TEXT NOT NULL,                 -- YYYY-MM-DD in the project's time zone
  points_awarded  INTEGER NOT NULL CHECK (points_awarded >= 0),
  shared_at       TEXT NOT NULL
);
-- Share status and limits: SELECT sum(local_day = today), max(shared_at) FROM social_shares
-- WHERE member_id = ? (covering).
CREATE INDEX social_shares_member ON social_shares(member_id, local_day, shared_at);

-- Points earned per member per leaderboard period, kept up to date by every award (post() with a
-- positive amount), so a leaderboard reads the top rows of one index instead of summing the
-- ledger. period is 'all', 'month', 'week' or 'day'; period_key is '' for all, YYYY-MM for a
-- month, the Monday's YYYY-MM-DD for a week, the YYYY-MM-DD for a day, in the project's time zone
-- at the time of the award. reached_at is when the member reached `points` (the tie-breaker).
CREATE TABLE leaderboard_totals (
  member_id   INTEGER NOT NULL REFERENCES members(id),
  period      TEXT NOT NULL CHECK (period = 'all' OR period = 'month' OR period = 'week' OR period = 'day'),
  period_key  TEXT NOT NULL,
  project_id  TEXT NOT NULL REFERENCES projects(id),
  points      INTEGER NOT NULL CHECK (points > 0),
  reached_at  TEXT NOT NULL,
  PRIMARY KEY (member_id, period, period_key)
) WITHOUT ROWID;
-- GET /leaderboard: the top N of one period, most points first, who got there first on a tie; and
-- a member's rank (count of the rows ahead of theirs, a range of the same index).
CREATE INDEX leaderboard_totals_rank ON leaderboard_totals(project_id, period, period_key, points DESC, reached_at, member_id);

-- Existing lifetime earnings join the all-time board, reached at the member's latest award.
-- Earlier days, weeks and months are not rebuilt: they count from this upgrade on.
INSERT INTO leaderboard_totals (member_id, period, period_key, project_id, points, reached_at)
  SELECT m.id, 'all', '', m.project_id, m.total_points_earned,
    coalesce((SELECT max(t.created_at) FROM transactions t WHERE t.member_id = m.id AND t.amount > 0), m.updated_at)
  FROM members m WHERE m.total_points_earned > 0;
