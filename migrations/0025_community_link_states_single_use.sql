-- Discord account linking: a sealed state completes one link at most. The callback records the
-- nonce of each state it accepts; a second callback with the same state is refused. A row is
-- useless once its state has expired (10 minutes after linking started), and each callback first
-- deletes those, so the table holds the callbacks of the last 10 minutes: small enough that the
-- deletion reads it whole, and no index beyond the key is needed.
CREATE TABLE community_link_nonces (
  nonce       TEXT PRIMARY KEY,            -- the state's nonce: looked up (and inserted) by each callback
  expires_at  INTEGER NOT NULL             -- the state's expiry, Unix ms
) WITHOUT ROWID;
