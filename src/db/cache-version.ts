import type { Db } from './connection.ts';
import { stmt } from './statements.ts';

/**
 * Tells a connection's caches of rarely changing rows (a project's settings, hot catalog and
 * webhook subscriptions) when to reload. `cacheVersion()` changes when another connection commits
 * (the CLI while the server runs: SQLite's `PRAGMA data_version`) and when this connection writes
 * such rows (their writers call `cachedRowsChanged()`).
 *
 * Inside a transaction begun by atomically() or the group committer, data_version is read once: no
 * other connection can commit while that transaction holds the write lock. Anywhere else (a read
 * outside any transaction, a transaction begun by better-sqlite3's own helper) it is read on every call.
 *
 * A transaction that wrote cached rows trusts no cache until it ends, and nothing loaded during it
 * is trusted afterwards: it might have been loaded before the write, or the write rolled back.
 */
interface CacheState {
  version: number;
  dataVersion: number | null;
  /** A transaction begun through src/db is open. */
  open: boolean;
  /** data_version has been read in the open transaction. */
  checked: boolean;
  /** Cached rows were written in the current transaction (or in one whose end was not seen here). */
  written: boolean;
}

const states = new WeakMap<Db, CacheState>();

const readDataVersion = (db: Db) => stmt<number>(db, 'PRAGMA data_version').pluck().get()!;

function state(db: Db): CacheState {
  let found = states.get(db);
  if (!found) {
    found = { version: 0, dataVersion: null, open: false, checked: false, written: false };
    states.set(db, found);
  }
  return found;
}

/** A number that stays the same for as long as what a cache loaded on this connection is still current. */
export function cacheVersion(db: Db): number {
  const s = state(db);
  if (s.written) {
    s.version++;
    // Outside any transaction, the one that wrote has ended: loads from now on see its outcome.
    if (!db.inTransaction) s.written = false;
  }
  if (!s.checked) {
    const dataVersion = readDataVersion(db);
    if (dataVersion !== s.dataVersion) {
      s.dataVersion = dataVersion;
      s.version++;
    }
    s.checked = s.open;
  }
  return s.version;
}

/** Call after writing a row that a per-connection cache holds, in the writing transaction. */
export function cachedRowsChanged(db: Db): void {
  const s = state(db);
  s.version++;
  s.written = true;
}

/** For src/db's transaction boundaries: after BEGIN. */
export function transactionBegan(db: Db): void {
  const s = state(db);
  s.open = true;
  s.checked = false;
}

/** For src/db's transaction boundaries: after COMMIT or ROLLBACK. */
export function transactionEnded(db: Db): void {
  const s = state(db);
  if (s.written) s.version++;
  s.open = false;
  s.checked = false;
  s.written = false;
}

const turnVersions = new WeakMap<Db, number>();

/**
 * SQLite's data_version, which changes when another connection (the CLI) commits, for caches read
 * outside transactions (API keys, widget secrets): at most one read per turn of the event loop.
 * Outside a transaction each read takes and drops SQLite's shared-memory read lock, about 5 µs,
 * as much as the whole key lookup it guards; requests that arrive together now share one. A
 * commit by the CLI is seen from the next turn on. Inside a transaction the read is exact and
 * costs nothing, so it is not kept.
 */
export function dataVersionThisTurn(db: Db): number {
  if (db.inTransaction) return readDataVersion(db);
  let version = turnVersions.get(db);
  if (version === undefined) {
    version = readDataVersion(db);
    turnVersions.set(db, version);
    setImmediate(() => turnVersions.delete(db));
  }
  return version;
}
