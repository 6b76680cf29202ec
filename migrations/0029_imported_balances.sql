-- Switching from another loyalty programme (members import, POST /members/import).
--
-- 1. The ledger gets a transaction type of its own for points brought over from another programme,
--    IMPORTED, written by the source `import`. A CHECK constraint cannot be changed in place, so
--    transactions and point_lots (the one table that references it) are copied into tables with the
--    new constraints, row for row with the same ids, and renamed. The copy reads the whole ledger
--    once: about a second per million transactions.
CREATE TABLE transactions_v29 (
  id            INTEGER PRIMARY KEY,            -- ledger order
  public_id     TEXT NOT NULL,                  -- txn_…, what the API shows; never looked up by
  project_id    TEXT NOT NULL REFERENCES projects(id),
  member_id     INTEGER NOT NULL REFERENCES members(id),
  amount        INTEGER NOT NULL CHECK (amount <> 0),
  balance       INTEGER NOT NULL CHECK (balance >= 0),
  type          TEXT NOT NULL CHECK (type = 'EARNED' OR type = 'REDEEMED' OR type = 'SPENT'
                  OR type = 'DEDUCTED' OR type = 'REFUNDED' OR type = 'EXPIRED' OR type = 'IMPORTED'),
  source        TEXT NOT NULL CHECK (source = 'api' OR source = 'quest' OR source = 'event' OR source = 'game' OR source = 'checkin'
                  OR source = 'share' OR source = 'order' OR source = 'community' OR source = 'referral' OR source = 'promo'
                  OR source = 'reward' OR source = 'welcome' OR source = 'badge' OR source = 'expiry' OR source = 'import'),
  actor         TEXT NOT NULL,
  description   TEXT,
  reference_id  TEXT,
  metadata      TEXT,
  expires_at    TEXT,
  created_at    TEXT NOT NULL
);
INSERT INTO transactions_v29 (id, public_id, project_id, member_id, amount, balance, type, source, actor, description, reference_id,
  metadata, expires_at, created_at)
SELECT id, public_id, project_id, member_id, amount, balance, type, source, actor, description, reference_id, metadata, expires_at, created_at
FROM transactions ORDER BY id;

CREATE TABLE point_lots_v29 (
  transaction_id  INTEGER PRIMARY KEY REFERENCES transactions_v29(id),   -- the award this lot is what is left of
  project_id      TEXT NOT NULL,
  member_id       INTEGER NOT NULL REFERENCES members(id),
  remaining       INTEGER NOT NULL CHECK (remaining >= 0),
  expires_at      TEXT NOT NULL
);
INSERT INTO point_lots_v29 (transaction_id, project_id, member_id, remaining, expires_at)
SELECT transaction_id, project_id, member_id, remaining, expires_at FROM point_lots ORDER BY transaction_id;

DROP TABLE point_lots;
DROP TABLE transactions;
ALTER TABLE transactions_v29 RENAME TO transactions;
ALTER TABLE point_lots_v29 RENAME TO point_lots;

-- The indexes and triggers of the tables replaced, as 0002, 0013 and 0026 made them.
-- A member's history, balance checks and the ledger audit read one member's rows.
CREATE INDEX transactions_member ON transactions(member_id);
CREATE TRIGGER transactions_append_only_update BEFORE UPDATE OF id, public_id, project_id, member_id, amount, balance, type, source,
  actor, expires_at, created_at ON transactions
BEGIN SELECT RAISE(ABORT, 'transactions are append-only'); END;
CREATE TRIGGER transactions_erase_only BEFORE UPDATE OF description, metadata ON transactions
WHEN new.description IS NOT NULL OR new.metadata IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'transactions are append-only'); END;
-- Erasure clears a reference, and nothing else changes one.
CREATE TRIGGER transactions_reference_erase_only BEFORE UPDATE OF reference_id ON transactions
WHEN new.reference_id IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'transactions are append-only'); END;
CREATE TRIGGER transactions_append_only_delete BEFORE DELETE ON transactions
BEGIN SELECT RAISE(ABORT, 'transactions are append-only'); END;
-- Spending draws a member's open lots, earliest expiry first (drawFromLots, expireDuePoints).
CREATE INDEX point_lots_open ON point_lots(member_id, expires_at) WHERE remaining > 0;
-- The expiry pass finds the members whose lots are due (membersWithDuePoints).
CREATE INDEX point_lots_due ON point_lots(expires_at) WHERE remaining > 0;

-- 2. A migrated customer keeps their tier: the lowest level the member holds whatever their lifetime
--    points (a level number; 0 = none). Levels otherwise follow lifetime points, which an import
--    knows only as the balance brought over.
ALTER TABLE members ADD COLUMN level_floor INTEGER NOT NULL DEFAULT 0;

-- 3. Points another programme still held back (LoyaltyLion's pending points), imported as pending:
--    not in the balance until available_at, when the release pass posts them as an IMPORTED entry
--    and deletes the row. A reset import or an erasure deletes them too.
CREATE TABLE pending_points (
  id            INTEGER PRIMARY KEY,
  project_id    TEXT NOT NULL REFERENCES projects(id),
  member_id     INTEGER NOT NULL REFERENCES members(id),
  points        INTEGER NOT NULL CHECK (points > 0),
  available_at  TEXT NOT NULL,
  reference_id  TEXT NOT NULL,                  -- the import's key, as on its IMPORTED entries
  description   TEXT NOT NULL,
  created_at    TEXT NOT NULL
);
-- The release pass takes the rows that are due (releaseDuePendingPoints).
CREATE INDEX pending_points_due ON pending_points(available_at);
-- A member's pending points: the points summary, an import's check of what it already brought, a reset.
CREATE INDEX pending_points_member ON pending_points(member_id);

-- 4. Members an import created from a row naming only an email: their externalId is that email
--    until the shop's own id for the shopper arrives (a WooCommerce customer, a signed widget
--    sign-in with that email), which then takes this member over instead of making a second one.
CREATE TABLE imported_email_members (
  member_id  INTEGER PRIMARY KEY REFERENCES members(id)
);

-- 5. Each run of `punchcard members import`: which file (its SHA-256) under which import key, so a
--    re-run of the same file, or of a corrected copy after a run that skipped lines or was stopped,
--    carries on the same import instead of adding every line again.
CREATE TABLE member_imports (
  id           INTEGER PRIMARY KEY,
  project_id   TEXT NOT NULL REFERENCES projects(id),
  import_key   TEXT NOT NULL,                   -- the reference of its ledger entries: the first version's fingerprint
  fingerprint  TEXT NOT NULL,                   -- SHA-256 of the file, hex
  source       TEXT NOT NULL,                   -- smile, loyaltylion, woocommerce-points, mycred, csv
  file_name    TEXT NOT NULL,                   -- the file's name without its folder
  mode         TEXT NOT NULL,                   -- add or reset
  rows         INTEGER NOT NULL DEFAULT 0,
  skipped      INTEGER NOT NULL DEFAULT 0,
  started_at   TEXT NOT NULL,
  finished_at  TEXT                             -- NULL: stopped before the end
);
-- An import looks for earlier runs of a file of the same name (memberImportRun).
CREATE INDEX member_imports_file ON member_imports(project_id, file_name);
