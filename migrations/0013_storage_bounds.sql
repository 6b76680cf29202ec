-- Storage that stays bounded and data that can be erased (issue 31 items 5, issue 23 item 19).

-- Idempotency keys hold what a replay needs and no more (issue 31 item 5): a 16-byte request
-- fingerprint, and for an award a reference to its ledger row plus the member's counters at the
-- time, instead of a JSON copy of the whole answer (941 bytes per award before). Other answers
-- keep a copy in `body`. Times are Unix milliseconds. The purge deletes by `id` in small batches,
-- oldest first: ids grow with created_at, so the oldest keys are the lowest ids.
CREATE TABLE idempotency_keys_v2 (
  id              INTEGER PRIMARY KEY,
  project_id      TEXT NOT NULL REFERENCES projects(id),
  key             TEXT NOT NULL,
  fingerprint     BLOB NOT NULL,      -- the first 16 bytes of SHA-256 over method, path and canonical body
  status          INTEGER NOT NULL,
  body            TEXT,               -- JSON copy of the answer; NULL when transaction_id references it
  transaction_id  INTEGER,            -- the award's ledger row (transactions.id)
  counters        TEXT,               -- with transaction_id: the member's [totalPointsEarned, currentStreak, longestStreak] then
  created_at      INTEGER NOT NULL
);
INSERT INTO idempotency_keys_v2 (project_id, key, fingerprint, status, body, created_at)
  SELECT project_id, key, substr(unhex(fingerprint), 1, 16), status, body,
    CAST(round((julianday(created_at) - 2440587.5) * 86400000) AS INTEGER)
  FROM idempotency_keys ORDER BY created_at;
DROP TABLE idempotency_keys;
ALTER TABLE idempotency_keys_v2 RENAME TO idempotency_keys;
CREATE UNIQUE INDEX idempotency_keys_project_key ON idempotency_keys(project_id, key);
-- The purge: the oldest keys first.
CREATE INDEX idempotency_keys_created ON idempotency_keys(created_at);
-- Erasure scrubs the copied answers of a project (the references hold no personal data).
CREATE INDEX idempotency_keys_copies ON idempotency_keys(project_id) WHERE body IS NOT NULL;

-- The ledger stays append-only, except that erasing a member clears the free text of their entries
-- (description and metadata may hold personal data): amounts, balances and ids never change.
DROP TRIGGER transactions_append_only_update;
CREATE TRIGGER transactions_append_only_update BEFORE UPDATE OF id, public_id, project_id, member_id, amount, balance, type, source,
  actor, reference_id, expires_at, created_at ON transactions
BEGIN SELECT RAISE(ABORT, 'transactions are append-only'); END;
CREATE TRIGGER transactions_erase_only BEFORE UPDATE OF description, metadata ON transactions
WHEN new.description IS NOT NULL OR new.metadata IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'transactions are append-only'); END;
