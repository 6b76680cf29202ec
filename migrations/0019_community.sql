-- The Discord community integration (docs/discord.md): a project's community settings, the links
-- between community (Discord) users and members, and the community events received.

-- One row per project that configured its community. Secrets are sealed (AES-256-GCM, the master
-- key); `config` is the JSON of points, cooldowns, caps, channels and bonus roles, merged over the
-- defaults when read, so a default that changes later reaches the projects that never set it.
CREATE TABLE community_settings (
  project_id           TEXT PRIMARY KEY REFERENCES projects(id),
  guild_id             TEXT,
  webhook_secret       TEXT,
  oauth_client_id      TEXT,
  oauth_client_secret  TEXT,
  config               TEXT NOT NULL DEFAULT '{}',
  updated_at           TEXT NOT NULL
);
-- Finding the project of a delivery from its X-Community-Guild-Id: a guild belongs to one project.
CREATE UNIQUE INDEX community_settings_guild ON community_settings(guild_id) WHERE guild_id IS NOT NULL;

-- One community account per member per guild, and one member per community account.
CREATE TABLE community_links (
  id                 INTEGER PRIMARY KEY,
  project_id         TEXT NOT NULL REFERENCES projects(id),
  guild_id           TEXT NOT NULL,
  community_user_id  TEXT NOT NULL,
  username           TEXT,
  member_id          INTEGER NOT NULL REFERENCES members(id),
  created_at         TEXT NOT NULL
);
-- Crediting an event: the member linked to a community user in the project's guild.
CREATE UNIQUE INDEX community_links_user ON community_links(project_id, guild_id, community_user_id);
-- Refusing a second account for a member (409) and finding a member's link for the widget.
CREATE UNIQUE INDEX community_links_member ON community_links(project_id, guild_id, member_id);

-- Every delivery received for a project: accepted ones (status 200, whatever they awarded) and the
-- ones refused after the project was known (400/401), for the log. `event_id` is the sender's id,
-- which is this table's public id. Times are Unix milliseconds. Rows older than the retention are
-- deleted a few at a time as new ones arrive (community_once keeps what must outlive them).
CREATE TABLE community_events (
  id                 INTEGER PRIMARY KEY,
  project_id         TEXT NOT NULL REFERENCES projects(id),
  event_id           TEXT,
  event_type         TEXT,
  community_user_id  TEXT,
  member_id          INTEGER,
  status             INTEGER NOT NULL,
  outcome            TEXT NOT NULL,
  base_points        INTEGER NOT NULL DEFAULT 0,  -- what counts against the daily cap (before multipliers)
  points             INTEGER NOT NULL DEFAULT 0,  -- what the member was paid
  multiplier         REAL NOT NULL DEFAULT 1,
  error              TEXT,
  created_at         INTEGER NOT NULL
);
-- Replays: an accepted eventId of a community user is answered with its first result.
CREATE UNIQUE INDEX community_events_replay ON community_events(project_id, event_id, community_user_id) WHERE status = 200;
-- Cooldowns (the last award of a type), daily caps (the sum since local midnight), one-time awards.
CREATE INDEX community_events_awards ON community_events(project_id, community_user_id, event_type, created_at)
  WHERE outcome IN ('awarded', 'partial');
-- The log (newest first, by row id) and the retention's deletes (oldest first).
CREATE INDEX community_events_project ON community_events(project_id, id);

-- One-time awards (server boost, member join, account link) per community user: kept for good,
-- apart from the event log, so the log's retention never makes a one-time award payable again.
CREATE TABLE community_once (
  project_id         TEXT NOT NULL REFERENCES projects(id),
  community_user_id  TEXT NOT NULL,
  event_type         TEXT NOT NULL,
  created_at         TEXT NOT NULL,
  PRIMARY KEY (project_id, community_user_id, event_type)
) WITHOUT ROWID;
