import type { Db } from '../../db/connection.ts';
import { fileRewriteDue } from '../../db/maintenance.ts';
import { stmt } from '../../db/statements.ts';
import type { WriteRunner } from '../ledger/expiry.ts';

/**
 * The copies an erasure cannot reach in its own transaction, and the pass that reaches them.
 *
 * With `secure_delete` on, what an erasure frees in a b-tree (the member's row, their index
 * entries, pages SQLite rebalances) is zeroed as it goes: nothing of it stays in the file. The
 * search index is the exception. It keeps no copy of the text, but its segments record which
 * members hold each trigram, and FTS5 removes a member by adding a delete marker in a new segment,
 * leaving the old entries where they are until a merge takes in the oldest segment. So after
 * erasures the index is merged into one segment, a few pages per write through the group
 * committer, so awards interleave (bench/README.md has the write lock each step holds).
 */

/** meta row counting erasures since the last sweep (eraseMember adds one in its transaction). */
const UNSWEPT = 'erasures_unswept';

/** Leaf pages each merge step writes: 1.4 ms of write lock (at most 6.4) over 100,000 members, against 132 ms for one `optimize` (bench/README.md). */
const MERGE_PAGES = 8;

/** Called in the erasing transaction, so the next sweep knows there is something to merge. */
export function noteErasure(db: Db): void {
  stmt(db, `INSERT INTO meta (key, value) VALUES ('${UNSWEPT}', 1)
    ON CONFLICT (key) DO UPDATE SET value = CAST(value AS INTEGER) + 1`).run();
}

/** Erasures the sweep has not reached yet. */
export const unsweptErasures = (db: Db): number =>
  Number(stmt<string>(db, 'SELECT value FROM meta WHERE key = ?').pluck().get(UNSWEPT) ?? 0);

/**
 * How many segments (b-trees) the search index has. FTS5 keys its data rows by segment id × 2^37
 * plus the page; the rows below that are its own records (averages, structure).
 */
export const searchIndexSegments = (db: Db): number =>
  stmt<number>(db, 'SELECT count(DISTINCT id >> 37) FROM members_search_data WHERE id >= 1 << 37').pluck().get()!;

/**
 * One step of merging every segment into one (FTS5's `merge` with a negative page count: an
 * incremental `optimize`). Returns the segments left and whether the step wrote anything.
 */
function mergeStep(db: Db): { segments: number; wrote: boolean } {
  const changes = stmt<number>(db, 'SELECT total_changes()').pluck();
  const before = changes.get()!;
  stmt(db, "INSERT INTO members_search (members_search, rank) VALUES ('merge', ?)").run(-MERGE_PAGES);
  // FTS5 writes at least two rows (a page and its structure) when it merged anything.
  return { segments: searchIndexSegments(db), wrote: changes.get()! - before >= 2 };
}

export interface SweepReport {
  /** Erasures the sweep covered. */
  erasures: number;
  /** Writes (merge steps) it took. */
  steps: number;
  /** Segments left: 1 (or 0 for an empty index) once done; more when it stopped at its step limit, and the next sweep goes on. */
  segments: number;
}

/**
 * Merges the search index into one segment if members were erased since the last sweep, one
 * short write per step; members created meanwhile add segments, so the steps are bounded (twice
 * the index's pages at the start, in steps of MERGE_PAGES) and a sweep cut short leaves its
 * erasures for the next. Returns null when there was nothing to sweep.
 */
export async function sweepErasedCopies(db: Db, write: WriteRunner): Promise<SweepReport | null> {
  const erasures = unsweptErasures(db);
  if (erasures === 0) return null;
  const pages = stmt<number>(db, 'SELECT count(*) FROM members_search_data').pluck().get()!;
  const limit = Math.ceil((2 * pages) / MERGE_PAGES) + 10;
  let step = { segments: searchIndexSegments(db), wrote: true };
  let steps = 0;
  while (step.segments > 1 && step.wrote && steps < limit) {
    step = await write(() => mergeStep(db));
    steps++;
  }
  if (step.segments <= 1) {
    // Erasures made while the sweep ran stay counted for the next one.
    await write(() => {
      stmt(db, 'UPDATE meta SET value = CAST(value AS INTEGER) - ? WHERE key = ?').run(erasures, UNSWEPT);
      stmt(db, 'DELETE FROM meta WHERE key = ? AND CAST(value AS INTEGER) <= 0').run(UNSWEPT);
    });
  }
  return { erasures, steps, segments: step.segments };
}

/** What `punchcard doctor` reports of erasure's reach into the file. */
export function erasureHealth(db: Db): { unsweptErasures: number; searchIndexSegments: number; fileRewriteDue: boolean } {
  return { unsweptErasures: unsweptErasures(db), searchIndexSegments: searchIndexSegments(db), fileRewriteDue: fileRewriteDue(db) };
}
