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

-- Member search stays inside each project's own rows. The trigram index was one key space for
-- every project, so a search read every project's members that hold its trigrams and then kept
-- its own: a 1-member project's search cost 4.5 ms of CPU beside a 50,000-member project against
-- 0.6 ms alone (bench/README.md), and its timing told it the other's size. Now the index's key
-- (its rowid) is project-first: `search_slot` × 2^40 + the member's id, so a project's members are
-- one contiguous range of every trigram's list and a search reads only that range (FTS5 seeks to a
-- rowid range through each list's own index). Member ids stay below 2^40; the index keeps no
-- copy of the text (content = ''), so it is told what to remove, as before.
ALTER TABLE projects ADD COLUMN search_slot INTEGER;
UPDATE projects SET search_slot = (SELECT count(*) FROM projects p WHERE p.rowid <= projects.rowid);
-- Each project's own range, and the next project's slot (max).
CREATE UNIQUE INDEX projects_search_slot ON projects(search_slot);
-- A project inserted without one (every insert: createProject, and rows written by other means) takes the next.
CREATE TRIGGER projects_take_search_slot AFTER INSERT ON projects WHEN new.search_slot IS NULL BEGIN
  UPDATE projects SET search_slot = (SELECT coalesce(max(search_slot), 0) + 1 FROM projects) WHERE rowid = new.rowid;
END;

DROP TRIGGER members_search_update;
DROP TABLE members_search;
CREATE VIRTUAL TABLE members_search USING fts5(
  external_id, email, name, content = '', tokenize = 'trigram case_sensitive 0', detail = none
);
-- Members are indexed once per transaction (0023), those above the highest id indexed so far.
CREATE TABLE members_search_progress (
  id             INTEGER PRIMARY KEY CHECK (id = 1),
  indexed_up_to  INTEGER NOT NULL
);
INSERT INTO members_search (rowid, external_id, email, name)
SELECT (p.search_slot << 40) + m.id, m.external_id, m.email, m.name FROM members m JOIN projects p ON p.id = m.project_id
WHERE m.erased_at IS NULL;
INSERT INTO members_search_progress (id, indexed_up_to) SELECT 1, coalesce(max(id), 0) FROM members;
-- An indexed member whose searchable fields change is indexed again; an erased one leaves the index.
CREATE TRIGGER members_search_update AFTER UPDATE OF external_id, email, name, erased_at ON members
WHEN EXISTS (SELECT 1 FROM members_search_docsize WHERE id = ((SELECT search_slot FROM projects WHERE id = old.project_id) << 40) + old.id) BEGIN
  INSERT INTO members_search (members_search, rowid, external_id, email, name)
    VALUES ('delete', ((SELECT search_slot FROM projects WHERE id = old.project_id) << 40) + old.id, old.external_id, old.email, old.name);
  INSERT INTO members_search (rowid, external_id, email, name)
    SELECT ((SELECT search_slot FROM projects WHERE id = new.project_id) << 40) + new.id, new.external_id, new.email, new.name
    WHERE new.erased_at IS NULL;
END;
