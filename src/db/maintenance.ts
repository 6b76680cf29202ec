import { existsSync, statSync } from 'node:fs';
import type { Db } from './connection.ts';

/** After a checkpoint resets the WAL, SQLite truncates the file to this size. */
export const JOURNAL_SIZE_LIMIT = 4 << 20;
/** Writes must pause this long before the WAL is checkpointed and truncated. */
export const QUIET_MS = 10_000;
/** Free pages returned to the disk per maintenance tick: 2 MB, so no tick holds the lock for long. */
export const VACUUM_PAGES = 500;

/**
 * New files use incremental vacuum; an existing file is converted once (the setting only takes
 * effect through a VACUUM, which cannot run inside a transaction: so this runs at start-up, after
 * the migrations, not in one). Returns whether it converted the file.
 */
export function useIncrementalVacuum(db: Db): boolean {
  if (db.pragma('auto_vacuum', { simple: true }) === 2) return false;
  db.pragma('auto_vacuum = INCREMENTAL');
  vacuum(db);
  return true;
}

/** Whether the file waits for its one rewrite (it was written before secure_delete was on, and no server has started on it since). */
export const fileRewriteDue = (db: Db): boolean => db.prepare("SELECT 1 FROM meta WHERE key = 'vacuum_due'").get() !== undefined;

/**
 * A file written before secure_delete was on (migration 0035 marks it) still holds copies of what
 * was freed then, erased members' data among them: this rewrites it once, so every page is written
 * afresh from the live rows (converting it to incremental vacuum with the same VACUUM, if it needs
 * that too). At start-up, like the conversion above. Returns whether it rewrote the file.
 */
export function rewriteFileWrittenBeforeSecureDelete(db: Db): boolean {
  if (!fileRewriteDue(db)) return false;
  db.pragma('auto_vacuum = INCREMENTAL');
  vacuum(db);
  db.prepare("DELETE FROM meta WHERE key = 'vacuum_due'").run();
  return true;
}

function vacuum(db: Db): void {
  db.exec('VACUUM');
  db.pragma('wal_checkpoint(TRUNCATE)'); // VACUUM wrote the whole file into the WAL
}

export interface MaintenanceReport {
  vacuumedPages: number;
  /** Whether the WAL was checkpointed and truncated (null: not tried, writes have not paused). */
  truncated: boolean | null;
  walBytes: number;
}

/**
 * Keeps the files small when Punchcard owns checkpoints (no Litestream): a bounded WAL
 * (journal_size_limit), freed pages returned in small steps, and once writes pause for QUIET_MS a
 * TRUNCATE checkpoint, which SQLite's automatic PASSIVE checkpoint never does (a WAL grown while
 * a reader held a snapshot stayed at that size until shutdown). `tick` runs between event-loop
 * turns, where the group committer never holds a transaction open.
 */
export class StorageMaintenance {
  readonly #db: Db;
  readonly #path: string;
  #changes = -1;
  #lastWriteAt = 0;

  constructor(db: Db, path: string) {
    this.#db = db;
    this.#path = path;
    db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
  }

  walBytes(): number {
    const wal = `${this.#path}-wal`;
    return existsSync(wal) ? statSync(wal).size : 0;
  }

  tick(now: Date): MaintenanceReport {
    const db = this.#db;
    // Rows this connection changed since it opened (the vacuum below changes none).
    const changes = db.prepare('SELECT total_changes()').pluck().get() as number;
    if (changes !== this.#changes) {
      this.#changes = changes;
      this.#lastWriteAt = now.getTime();
    }
    const free = db.pragma('freelist_count', { simple: true }) as number;
    const vacuumedPages = Math.min(free, VACUUM_PAGES);
    if (vacuumedPages > 0) db.pragma(`incremental_vacuum(${vacuumedPages})`);
    let truncated: boolean | null = null;
    if (now.getTime() - this.#lastWriteAt >= QUIET_MS && this.walBytes() > 0) {
      // busy = 1 when a reader still holds an older snapshot: try again at the next tick.
      const [result] = db.pragma('wal_checkpoint(TRUNCATE)') as { busy: number }[];
      truncated = result!.busy === 0;
    }
    return { vacuumedPages, truncated, walBytes: this.walBytes() };
  }
}
