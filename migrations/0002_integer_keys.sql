-- The hot tables move to integer row ids. Public ids (mem_…, txn_…) become plain columns, and
-- foreign keys between hot tables become integers: a ledger row and its index entries shrink by
-- two 26-byte text keys, and each award writes one b-tree fewer (no separate primary-key index).
-- Every index below names the query it serves. Rows, public ids, balances, lots and idempotency
-- records are copied as they are; ledger order (rowid) is kept.

CREATE TABLE members_v2 (
  id                   INTEGER PRIMARY KEY,
  public_id            TEXT NOT NULL,          -- mem_…, what the API shows; never looked up by
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
INSERT INTO members_v2 (public_id, project_id, external_id, email, name, avatar_url, phone, date_of_birth, metadata, points,
  total_points_earned, current_streak, longest_streak, last_checkin_at, created_at, updated_at, erased_at)
SELECT id, project_id, external_id, email, name, avatar_url, phone, date_of_birth, metadata, points,
  total_points_earned, current_streak, longest_streak, last_checkin_at, created_at, updated_at, erased_at
FROM members ORDER BY rowid;
-- Only for the copy below; dropped at the end.
CREATE UNIQUE INDEX members_v2_public_id ON members_v2(public_id);

CREATE TABLE transactions_v2 (
  id            INTEGER PRIMARY KEY,            -- ledger order
  public_id     TEXT NOT NULL,                  -- txn_…, what the API shows; never looked up by
  project_id    TEXT NOT NULL REFERENCES projects(id),
  member_id     INTEGER NOT NULL REFERENCES members_v2(id),
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
INSERT INTO transactions_v2 (public_id, project_id, member_id, amount, balance, type, source, actor, description,
  reference_id, metadata, expires_at, created_at)
SELECT t.id, t.project_id, m.id, t.amount, t.balance, t.type, t.source, t.actor, t.description,
  t.reference_id, t.metadata, t.expires_at, t.created_at
FROM transactions t JOIN members_v2 m ON m.public_id = t.member_id ORDER BY t.rowid;
-- Only for the copy below; dropped at the end.
CREATE UNIQUE INDEX transactions_v2_public_id ON transactions_v2(public_id);

CREATE TABLE point_lots_v2 (
  transaction_id  INTEGER PRIMARY KEY REFERENCES transactions_v2(id),   -- the award this lot is what is left of
  project_id      TEXT NOT NULL,
  member_id       INTEGER NOT NULL REFERENCES members_v2(id),
  remaining       INTEGER NOT NULL CHECK (remaining >= 0),
  expires_at      TEXT NOT NULL
);
INSERT INTO point_lots_v2 (transaction_id, project_id, member_id, remaining, expires_at)
SELECT t.id, l.project_id, t.member_id, l.remaining, l.expires_at
FROM point_lots l JOIN transactions_v2 t ON t.public_id = l.transaction_id ORDER BY t.id;

CREATE TABLE idempotency_keys_v2 (
  id           INTEGER PRIMARY KEY,
  project_id   TEXT NOT NULL REFERENCES projects(id),
  key          TEXT NOT NULL,
  fingerprint  TEXT NOT NULL,     -- SHA-256 of method, path and canonical body
  status       INTEGER NOT NULL,
  body         TEXT NOT NULL,
  created_at   TEXT NOT NULL
);
INSERT INTO idempotency_keys_v2 (project_id, key, fingerprint, status, body, created_at)
SELECT project_id, key, fingerprint, status, body, created_at FROM idempotency_keys ORDER BY created_at;

-- Children first, so no foreign key points at a dropped table.
DROP TABLE point_lots;
DROP TABLE transactions;
DROP TABLE members;
DROP TABLE idempotency_keys;
DROP INDEX members_v2_public_id;
DROP INDEX transactions_v2_public_id;
ALTER TABLE members_v2 RENAME TO members;
ALTER TABLE transactions_v2 RENAME TO transactions;
ALTER TABLE point_lots_v2 RENAME TO point_lots;
ALTER TABLE idempotency_keys_v2 RENAME TO idempotency_keys;

-- Every member lookup by the caller's id (requireMember); also keeps externalIds unique among a
-- project's live members (an erased member gives its id back).
CREATE UNIQUE INDEX members_external_id ON members(project_id, external_id) WHERE erased_at IS NULL;
-- GET /members/lookup?email= (case-insensitive).
CREATE INDEX members_project_email ON members(project_id, email COLLATE NOCASE);
-- GET /members without a search: a project's members, newest first.
CREATE INDEX members_project_created ON members(project_id, created_at);

-- A member's history, newest first (GET …/points?history=true, export, the ledger audit):
-- entries are (member_id, rowid), so the rowid order comes with the index.
CREATE INDEX transactions_member ON transactions(member_id);

CREATE TRIGGER transactions_append_only_update BEFORE UPDATE ON transactions
BEGIN SELECT RAISE(ABORT, 'transactions are append-only'); END;
CREATE TRIGGER transactions_append_only_delete BEFORE DELETE ON transactions
BEGIN SELECT RAISE(ABORT, 'transactions are append-only'); END;

-- Spending draws a member's open lots, earliest expiry first (drawFromLots, expireDuePoints).
CREATE INDEX point_lots_open ON point_lots(member_id, expires_at) WHERE remaining > 0;
-- The expiry pass: members with lots due, oldest first (membersWithDuePoints).
CREATE INDEX point_lots_due ON point_lots(expires_at) WHERE remaining > 0;

-- Replay lookup by (project, key); also makes a key unique per project.
CREATE UNIQUE INDEX idempotency_keys_project_key ON idempotency_keys(project_id, key);
-- The hourly purge of keys older than the window.
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);

-- Substring search over externalId, email and name (GET /members?search=). Trigrams index every
-- three-character window, so "%text%" is an index lookup instead of a scan of every member.
-- External content: the text lives only in members; erased members are left out.
CREATE VIRTUAL TABLE members_search USING fts5(
  external_id, email, name, content = 'members', content_rowid = 'id', tokenize = 'trigram case_sensitive 0'
);
INSERT INTO members_search (rowid, external_id, email, name)
SELECT id, external_id, email, name FROM members WHERE erased_at IS NULL;

-- Kept in step in the same transaction as every member write. Awards update points, not these
-- columns, so they never fire this trigger.
CREATE TRIGGER members_search_insert AFTER INSERT ON members WHEN new.erased_at IS NULL BEGIN
  INSERT INTO members_search (rowid, external_id, email, name) VALUES (new.id, new.external_id, new.email, new.name);
END;
CREATE TRIGGER members_search_update AFTER UPDATE OF external_id, email, name, erased_at ON members BEGIN
  INSERT INTO members_search (members_search, rowid, external_id, email, name)
    SELECT 'delete', old.id, old.external_id, old.email, old.name WHERE old.erased_at IS NULL;
  INSERT INTO members_search (rowid, external_id, email, name)
    SELECT new.id, new.external_id, new.email, new.name WHERE new.erased_at IS NULL;
END;
