-- Core schema: projects (tenants), their API keys, members, and the points ledger.
-- Timestamps are ISO 8601 UTC strings (sortable as text). Every tenant-owned row carries project_id.

CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE projects (
  id                  TEXT PRIMARY KEY,
  name                TEXT NOT NULL,
  widget_secret       TEXT NOT NULL,          -- encrypted (AES-256-GCM) under the master key
  points_expiry_days  INTEGER CHECK (points_expiry_days IS NULL OR points_expiry_days > 0),
  timezone            TEXT NOT NULL DEFAULT 'UTC',
  created_at          TEXT NOT NULL
);

CREATE TABLE api_keys (
  id          TEXT PRIMARY KEY,
  project_id  TEXT NOT NULL REFERENCES projects(id),
  type        TEXT NOT NULL CHECK (type IN ('secret', 'publishable')),
  key_hash    TEXT NOT NULL UNIQUE,             -- hex SHA-256 of the full key; the key itself is never stored
  key_prefix  TEXT NOT NULL,                    -- first 12 characters, for display and audit
  created_at  TEXT NOT NULL,
  expires_at  TEXT,
  revoked_at  TEXT
);
CREATE INDEX api_keys_project ON api_keys(project_id);

CREATE TABLE members (
  id                   TEXT PRIMARY KEY,
  project_id           TEXT NOT NULL REFERENCES projects(id),
  external_id          TEXT NOT NULL,
  email                TEXT,
  name                 TEXT,
  avatar_url           TEXT,
  phone                TEXT,
  date_of_birth        TEXT,
  metadata             TEXT NOT NULL DEFAULT '{}',
  points               INTEGER NOT NULL DEFAULT 0 CHECK (points >= 0),
  total_points_earned  INTEGER NOT NULL DEFAULT 0 CHECK (total_points_earned >= 0),
  current_streak       INTEGER NOT NULL DEFAULT 0,
  longest_streak       INTEGER NOT NULL DEFAULT 0,
  last_checkin_at      TEXT,
  created_at           TEXT NOT NULL,
  updated_at           TEXT NOT NULL,
  erased_at            TEXT
);
-- An externalId is unique among a project's live members; an erased member gives its id back.
CREATE UNIQUE INDEX members_external_id ON members(project_id, external_id) WHERE erased_at IS NULL;
CREATE INDEX members_project_email ON members(project_id, email COLLATE NOCASE);

-- The ledger. Append-only: the triggers below refuse every UPDATE and DELETE.
-- The enum CHECKs are written with OR, not IN (…): SQLite builds an ephemeral table for an IN list
-- on every insert, which made the hot insert about twice as slow.
CREATE TABLE transactions (
  id            TEXT PRIMARY KEY,
  project_id    TEXT NOT NULL REFERENCES projects(id),
  member_id     TEXT NOT NULL REFERENCES members(id),
  amount        INTEGER NOT NULL CHECK (amount <> 0),
  balance       INTEGER NOT NULL CHECK (balance >= 0),
  type          TEXT NOT NULL CHECK (type = 'EARNED' OR type = 'REDEEMED' OR type = 'SPENT'
                  OR type = 'DEDUCTED' OR type = 'REFUNDED' OR type = 'EXPIRED'),
  source        TEXT NOT NULL CHECK (source = 'api' OR source = 'quest' OR source = 'event' OR source = 'game' OR source = 'checkin'
                  OR source = 'share' OR source = 'order' OR source = 'community' OR source = 'referral' OR source = 'promo'
                  OR source = 'reward' OR source = 'welcome' OR source = 'badge' OR source = 'expiry'),
  actor         TEXT NOT NULL,
  description   TEXT,
  reference_id  TEXT,
  metadata      TEXT,
  expires_at    TEXT,
  created_at    TEXT NOT NULL
);
CREATE INDEX transactions_member ON transactions(member_id);

CREATE TRIGGER transactions_append_only_update BEFORE UPDATE ON transactions
BEGIN SELECT RAISE(ABORT, 'transactions are append-only'); END;
CREATE TRIGGER transactions_append_only_delete BEFORE DELETE ON transactions
BEGIN SELECT RAISE(ABORT, 'transactions are append-only'); END;

-- What is left of each award that expires, so spending can draw from the earliest-expiring
-- points first and the expiry pass knows exactly how much of an award is still unspent.
-- Never-expiring points need no rows: they are members.points minus the lots' remaining.
-- Invariant: sum(remaining) over a member's lots <= members.points.
CREATE TABLE point_lots (
  transaction_id  TEXT PRIMARY KEY REFERENCES transactions(id),
  project_id      TEXT NOT NULL,
  member_id       TEXT NOT NULL REFERENCES members(id),
  remaining       INTEGER NOT NULL CHECK (remaining >= 0),
  expires_at      TEXT NOT NULL
);
CREATE INDEX point_lots_open ON point_lots(member_id, expires_at) WHERE remaining > 0;
CREATE INDEX point_lots_due ON point_lots(expires_at) WHERE remaining > 0;

CREATE TABLE idempotency_keys (
  project_id   TEXT NOT NULL REFERENCES projects(id),
  key          TEXT NOT NULL,
  fingerprint  TEXT NOT NULL,     -- SHA-256 of method, path and canonical body
  status       INTEGER NOT NULL,
  body         TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  PRIMARY KEY (project_id, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
