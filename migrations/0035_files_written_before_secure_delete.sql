-- Erasure reaches the file's bytes. Since secure_delete is on, what a write frees is zeroed, but a
-- file written before then still holds copies of values since changed or erased: old versions of
-- rows in its pages' free space, and index keys in pages SQLite split (2,000 erasures among 10,000
-- members left 172 of 1,800 externalIds in such a file, and none in a file written with
-- secure_delete on throughout: bench/README.md). A file that has projects was written before this
-- migration: the server rewrites it once (VACUUM) at its next start, before it listens
-- (src/db/maintenance.ts). New files never need it.
INSERT INTO meta (key, value) SELECT 'vacuum_due', 'written before secure_delete' WHERE EXISTS (SELECT 1 FROM projects);
-- Members erased before now left their entries in the search index's older segments: the first
-- erasure sweep merges them away (src/domain/members/erasure-sweep.ts).
INSERT OR REPLACE INTO meta (key, value) SELECT 'erasures_unswept', count(*) FROM members WHERE erased_at IS NOT NULL HAVING count(*) > 0;
