-- The gamification catalog (quests, rewards, badges, games, promo codes, multiplier events,
-- levels), project settings, and what members do with the catalog (quest progress, badges held).
--
-- Catalog tables are small and edited by operators: text ids (qst_…, rwd_…), and every row has
-- project_id, an optional stable `key` (what `punchcard seed --file` matches items by),
-- created/updated timestamps and archived_at (DELETE archives: the row stays readable by id for
-- the history that refers to it, and no longer applies). Booleans are 0/1, timestamps ISO 8601
-- UTC text, nested values JSON text. The API validates every field; the CHECKs below guard the
-- enums and ranges against a bug writing nonsense.

-- Project settings beyond the projects columns (welcome bonus, referrals, social share, widget),
-- as validated JSON holding only what the operator changed; defaults fill the rest on read.
ALTER TABLE projects ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
-- A random token replaced on every catalog change, in the same transaction. Hot paths (levels in
-- the member view, multipliers and badge criteria on every award) keep the project's catalog in
-- memory and reload it when this differs, so a rolled-back change is never seen.
ALTER TABLE projects ADD COLUMN catalog_version TEXT NOT NULL DEFAULT '';

CREATE TABLE quests (
  id                TEXT PRIMARY KEY,            -- qst_…
  project_id        TEXT NOT NULL REFERENCES projects(id),
  key               TEXT,
  name              TEXT NOT NULL,
  description       TEXT,
  action            TEXT,                        -- the event name POST /events matches
  completion_mode   TEXT NOT NULL CHECK (completion_mode = 'MANUAL' OR completion_mode = 'AUTOMATED' OR completion_mode = 'SELF_REPORT'),
  target_count      INTEGER NOT NULL DEFAULT 1 CHECK (target_count >= 1),
  points            INTEGER NOT NULL DEFAULT 0 CHECK (points >= 0),
  badge_id          TEXT,                        -- awarded on completion
  repeatable        INTEGER NOT NULL DEFAULT 0 CHECK (repeatable = 0 OR repeatable = 1),
  cooldown_minutes  INTEGER NOT NULL DEFAULT 0 CHECK (cooldown_minutes >= 0),
  image_url         TEXT,
  starts_at         TEXT,
  ends_at           TEXT,
  is_active         INTEGER NOT NULL DEFAULT 1 CHECK (is_active = 0 OR is_active = 1),
  created_at        TEXT NOT NULL,
  updated_at        TEXT NOT NULL,
  archived_at       TEXT
);
-- POST /events: the project's live AUTOMATED quests whose action is the event, without a scan.
CREATE INDEX quests_automated_action ON quests(project_id, action) WHERE completion_mode = 'AUTOMATED' AND archived_at IS NULL;

CREATE TABLE rewards (
  id                   TEXT PRIMARY KEY,         -- rwd_…
  project_id           TEXT NOT NULL REFERENCES projects(id),
  key                  TEXT,
  name                 TEXT NOT NULL,
  description          TEXT,
  image_url            TEXT,
  type                 TEXT NOT NULL CHECK (type = 'COUPON' OR type = 'PHYSICAL' OR type = 'DIGITAL' OR type = 'RAFFLE' OR type = 'CUSTOM'),
  points_cost          INTEGER NOT NULL CHECK (points_cost >= 0),
  stock                INTEGER CHECK (stock >= 0),                       -- NULL = unlimited
  max_claims_per_user  INTEGER CHECK (max_claims_per_user >= 1),         -- NULL = unlimited
  min_level            INTEGER NOT NULL DEFAULT 0 CHECK (min_level >= 0),
  discount_config      TEXT,                     -- JSON {type, value} for COUPON
  digital_content      TEXT,                     -- what a DIGITAL claim reveals
  expires_at           TEXT,
  is_active            INTEGER NOT NULL DEFAULT 1 CHECK (is_active = 0 OR is_active = 1),
  created_at           TEXT NOT NULL,
  updated_at           TEXT NOT NULL,
  archived_at          TEXT
);

CREATE TABLE badges (
  id           TEXT PRIMARY KEY,                 -- bdg_…
  project_id   TEXT NOT NULL REFERENCES projects(id),
  key          TEXT,
  name         TEXT NOT NULL,
  description  TEXT,
  image_url    TEXT,
  rarity       TEXT NOT NULL CHECK (rarity = 'COMMON' OR rarity = 'UNCOMMON' OR rarity = 'RARE' OR rarity = 'EPIC' OR rarity = 'LEGENDARY'),
  criteria     TEXT,                             -- JSON {type, threshold}: awarded automatically
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  archived_at  TEXT
);

CREATE TABLE games (
  id                 TEXT PRIMARY KEY,           -- gam_…
  project_id         TEXT NOT NULL REFERENCES projects(id),
  key                TEXT,
  name               TEXT NOT NULL,
  description        TEXT,
  image_url          TEXT,
  type               TEXT NOT NULL CHECK (type = 'SPIN_WHEEL' OR type = 'SLOTS' OR type = 'DICE' OR type = 'SCRATCH_CARD' OR type = 'DAILY_CHECKIN'),
  points_cost        INTEGER NOT NULL DEFAULT 0 CHECK (points_cost >= 0),
  max_plays_per_user INTEGER CHECK (max_plays_per_user >= 1),            -- NULL = unlimited
  daily_plays_limit  INTEGER CHECK (daily_plays_limit >= 1),             -- NULL = unlimited
  cooldown_minutes   INTEGER NOT NULL DEFAULT 0 CHECK (cooldown_minutes >= 0),
  prizes             TEXT NOT NULL DEFAULT '[]', -- JSON [{name, value, weight}]
  checkin_points     INTEGER NOT NULL DEFAULT 0 CHECK (checkin_points >= 0),
  streak_bonuses     TEXT NOT NULL DEFAULT '[]', -- JSON [{day, bonus}]
  is_active          INTEGER NOT NULL DEFAULT 1 CHECK (is_active = 0 OR is_active = 1),
  created_at         TEXT NOT NULL,
  updated_at         TEXT NOT NULL,
  archived_at        TEXT
);

CREATE TABLE promo_codes (
  id               TEXT PRIMARY KEY,             -- prm_…
  project_id       TEXT NOT NULL REFERENCES projects(id),
  key              TEXT,
  code             TEXT NOT NULL,                -- matched case-insensitively
  description      TEXT,
  reward_type      TEXT NOT NULL CHECK (reward_type = 'POINTS' OR reward_type = 'REWARD'),
  points           INTEGER CHECK (points >= 1),
  reward_id        TEXT,
  max_redemptions  INTEGER CHECK (max_redemptions >= 1),                 -- NULL = unlimited
  starts_at        TEXT,
  expires_at       TEXT,
  is_active        INTEGER NOT NULL DEFAULT 1 CHECK (is_active = 0 OR is_active = 1),
  created_at       TEXT NOT NULL,
  updated_at       TEXT NOT NULL,
  archived_at      TEXT
);
-- POST /promo-codes/redeem finds a live code by its text; also keeps live codes unique per project.
CREATE UNIQUE INDEX promo_codes_code ON promo_codes(project_id, code COLLATE NOCASE) WHERE archived_at IS NULL;

CREATE TABLE multipliers (
  id           TEXT PRIMARY KEY,                 -- mul_…
  project_id   TEXT NOT NULL REFERENCES projects(id),
  key          TEXT,
  name         TEXT NOT NULL,
  description  TEXT,
  multiplier   REAL NOT NULL CHECK (multiplier > 1),
  starts_at    TEXT NOT NULL,
  ends_at      TEXT NOT NULL,
  sources      TEXT,                             -- JSON array of earning sources; NULL = all
  is_active    INTEGER NOT NULL DEFAULT 1 CHECK (is_active = 0 OR is_active = 1),
  created_at   TEXT NOT NULL,
  updated_at   TEXT NOT NULL,
  archived_at  TEXT,
  CHECK (starts_at < ends_at)
);

CREATE TABLE levels (
  id                       TEXT PRIMARY KEY,     -- lvl_…
  project_id               TEXT NOT NULL REFERENCES projects(id),
  key                      TEXT,
  level                    INTEGER NOT NULL CHECK (level >= 0),
  name                     TEXT NOT NULL,
  description              TEXT,
  min_total_points_earned  INTEGER NOT NULL CHECK (min_total_points_earned >= 0),
  created_at               TEXT NOT NULL,
  updated_at               TEXT NOT NULL,
  archived_at              TEXT
);
-- Keeps level numbers unique among a project's live levels (the catalog's uniqueness check reads it).
CREATE UNIQUE INDEX levels_number ON levels(project_id, level) WHERE archived_at IS NULL;

-- Every catalog list (GET /quests …, the CLI, the in-memory catalog loader) reads a project's rows
-- in creation order; seed matches items by (project, key), which must be unique among live rows.
CREATE INDEX quests_project ON quests(project_id, created_at);
CREATE INDEX rewards_project ON rewards(project_id, created_at);
CREATE INDEX badges_project ON badges(project_id, created_at);
CREATE INDEX games_project ON games(project_id, created_at);
CREATE INDEX promo_codes_project ON promo_codes(project_id, created_at);
CREATE INDEX multipliers_project ON multipliers(project_id, created_at);
CREATE INDEX levels_project ON levels(project_id, created_at);
CREATE UNIQUE INDEX quests_key ON quests(project_id, key) WHERE key IS NOT NULL AND archived_at IS NULL;
CREATE UNIQUE INDEX rewards_key ON rewards(project_id, key) WHERE key IS NOT NULL AND archived_at IS NULL;
CREATE UNIQUE INDEX badges_key ON badges(project_id, key) WHERE key IS NOT NULL AND archived_at IS NULL;
CREATE UNIQUE INDEX games_key ON games(project_id, key) WHERE key IS NOT NULL AND archived_at IS NULL;
CREATE UNIQUE INDEX promo_codes_key ON promo_codes(project_id, key) WHERE key IS NOT NULL AND archived_at IS NULL;
CREATE UNIQUE INDEX multipliers_key ON multipliers(project_id, key) WHERE key IS NOT NULL AND archived_at IS NULL;
CREATE UNIQUE INDEX levels_key ON levels(project_id, key) WHERE key IS NOT NULL AND archived_at IS NULL;

-- One row per attempt at a quest by a member: IN_PROGRESS while counting, COMPLETED once the
-- target is reached (a repeatable quest then starts a new row). The completed row is the quest
-- completion the API shows, with what was paid and why.
CREATE TABLE quest_progress (
  id                     INTEGER PRIMARY KEY,
  public_id              TEXT NOT NULL,          -- qcp_…, the completion id the API shows
  project_id             TEXT NOT NULL REFERENCES projects(id),
  quest_id               TEXT NOT NULL REFERENCES quests(id),
  member_id              INTEGER NOT NULL REFERENCES members(id),
  progress               INTEGER NOT NULL CHECK (progress >= 0),
  target_count           INTEGER NOT NULL CHECK (target_count >= 1),
  status                 TEXT NOT NULL CHECK (status = 'IN_PROGRESS' OR status = 'COMPLETED'),
  points_awarded         INTEGER,
  base_points            INTEGER,
  multiplier             REAL,
  multiplier_event_name  TEXT,
  transaction_id         TEXT,                   -- txn_… of the award, when points were paid
  metadata               TEXT,
  created_at             TEXT NOT NULL,
  updated_at             TEXT NOT NULL,
  completed_at           TEXT
);
-- A member's open attempt at a quest, and their latest completion of it (409 and cooldown checks);
-- also the member's completed-quest count for badge criteria (member_id prefix).
CREATE INDEX quest_progress_member_quest ON quest_progress(member_id, quest_id, status);

CREATE TABLE member_badges (
  id           INTEGER PRIMARY KEY,
  public_id    TEXT NOT NULL,                    -- mbg_…
  project_id   TEXT NOT NULL REFERENCES projects(id),
  member_id    INTEGER NOT NULL REFERENCES members(id),
  badge_id     TEXT NOT NULL REFERENCES badges(id),
  source       TEXT NOT NULL CHECK (source = 'manual' OR source = 'quest' OR source = 'criteria'),
  awarded_at   TEXT NOT NULL
);
-- GET /members/{externalId}/badges and "does the member hold it"; a member holds a badge at most once.
CREATE UNIQUE INDEX member_badges_member_badge ON member_badges(member_id, badge_id);
