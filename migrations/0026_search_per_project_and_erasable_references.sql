-- Erasure clears the references of an erased member's ledger entries too, as it clears their
-- description and metadata: a reference can name a store order (`wc_order_…`), a Discord account
-- (`link:…`) or whatever text a client sent. reference_id may now change, and only to NULL.
DROP TRIGGER transactions_append_only_update;
CREATE TRIGGER transactions_append_only_update BEFORE UPDATE OF id, public_id, project_id, member_id, amount, balance, type, source,
  actor, expires_at, created_at ON transactions
BEGIN SELECT RAISE(ABORT, 'transactions are append-only'); END;
CREATE TRIGGER transactions_reference_erase_only BEFORE UPDATE OF reference_id ON transactions
WHEN new.reference_id IS NOT NULL
BEGIN SELECT RAISE(ABORT, 'transactions are append-only'); END;
