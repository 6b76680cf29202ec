import { openSqlite } from './sqlite.ts';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Db } from './connection.ts';

export interface BackupReport {
  file: string;
  bytes: number;
  ms: number;
}

function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Writes a consistent copy of `db` to `file`. VACUUM INTO reads one snapshot, so writers never
 * make it start over (the online backup API restarts whenever another connection commits, and
 * under steady load never finishes). The copy goes to a 0600 temp file beside the target (it holds
 * members' personal data), is fsynced and integrity-checked, and only then renamed into place:
 * `file` either does not exist or is a checked backup.
 */
export function backupDatabase(db: Db, file: string): BackupReport {
  const started = performance.now();
  const target = resolve(file);
  const folder = dirname(target);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new Error(`No folder ${folder} to write the backup into: create it first (mkdir -p ${folder}) or choose another file.`);
  }
  if (existsSync(target)) throw new Error(`${target} already exists; choose a new file name`);
  const partial = join(folder, `.${basename(target)}.${randomBytes(6).toString('hex')}.partial`);
  // VACUUM INTO accepts an empty file: creating it first gives it mode 0600 whatever the umask.
  closeSync(openSync(partial, 'wx', 0o600));
  try {
    db.prepare('VACUUM INTO ?').run(partial);
    fsyncPath(partial); // VACUUM INTO writes without syncing
    const copy = openSqlite(partial, { readonly: true });
    try {
      const problems = (copy.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check);
      if (problems.join() !== 'ok') throw new Error(`The backup copy failed SQLite's integrity check (${problems.slice(0, 3).join('; ')}); nothing was written.`);
    } finally {
      copy.close();
    }
    renameSync(partial, target);
    fsyncPath(folder); // the rename itself survives a power cut
    return { file: target, bytes: statSync(target).size, ms: Math.round(performance.now() - started) };
  } catch (error) {
    rmSync(partial, { force: true });
    throw error;
  }
}

export interface FolderBackupReport extends BackupReport {
  /** The copies this run deleted (names in the folder), oldest first. */
  pruned: string[];
  /** How many copies it made are left in the folder, this one included. */
  kept: number;
}

/** How many of the copies in a folder to keep: the newest `keep`, plus the newest of each of the latest `keepWeekly` weeks. */
export interface Retention {
  keep?: number | undefined;
  keepWeekly?: number | undefined;
}

/** The database's file name without `.db`: the copies of `punchcard.db` are `punchcard-<time>.db`. */
const baseName = (dbPath: string) => basename(dbPath).replace(/\.db$/, '');
const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * `punchcard-2026-05-01T031500.123Z.db`: the UTC time to the millisecond (two runs in one second
 * get two names), sortable as text, without colons (some file systems refuse them).
 */
function backupName(dbPath: string, now: Date): string {
  const iso = now.toISOString();
  return `${baseName(dbPath)}-${iso.slice(0, 10)}T${iso.slice(11, 23).replace(/:/g, '')}Z.db`;
}

/** A name `backupName` gave a copy of `dbPath`; its groups are the UTC date and the time of day. */
const ownCopy = (dbPath: string) => new RegExp(`^${escapeRegExp(baseName(dbPath))}-(\\d{4}-\\d{2}-\\d{2})T(\\d{2})(\\d{2})(\\d{2}\\.\\d{3})Z\\.db$`);

/** The copies in `folder` named by `backupName`, newest first. */
const copiesIn = (folder: string, own: RegExp) => readdirSync(folder).filter((name) => own.test(name)).sort().reverse();

/** The copies of `dbPath` that backups into `folder` made (the nightly timer's and the admin's alike), newest first, with their size and time. */
export function listBackups(folder: string, dbPath: string): { file: string; bytes: number; createdAt: string }[] {
  const own = ownCopy(dbPath);
  if (!existsSync(folder)) return []; // none taken yet: the first makes the folder
  return copiesIn(folder, own).map((file) => {
    const [, date, hours, minutes, seconds] = own.exec(file)!;
    return { file, bytes: statSync(join(folder, file)).size, createdAt: `${date}T${hours}:${minutes}:${seconds}Z` };
  });
}

/** The Monday (UTC) of a YYYY-MM-DD date: the week a copy counts in. */
function weekOf(date: string): string {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() - ((day.getUTCDay() + 6) % 7));
  return day.toISOString().slice(0, 10);
}

/**
 * Deletes the copies of `dbPath` in `folder` that the retention does not keep. Only names this
 * program gives (`backupName`: the database's name, a dash, a UTC time, `.db`) count: other files,
 * copies of another database, and copies written under a name of your choosing are never touched.
 * The newest copy is always kept; without a retention, every copy is.
 */
function pruneBackups(folder: string, dbPath: string, retention: Retention): { pruned: string[]; kept: number } {
  const own = ownCopy(dbPath);
  const copies = copiesIn(folder, own);
  if (retention.keep === undefined && retention.keepWeekly === undefined) return { pruned: [], kept: copies.length };
  const keep = new Set(copies.slice(0, Math.max(1, retention.keep ?? 0)));
  const weeks = new Set<string>();
  for (const name of copies) {
    const week = weekOf(own.exec(name)![1]!);
    if (weeks.has(week) || weeks.size >= (retention.keepWeekly ?? 0)) continue;
    weeks.add(week);
    keep.add(name); // the newest copy of the week
  }
  const pruned = copies.filter((name) => !keep.has(name)).reverse();
  for (const name of pruned) rmSync(join(folder, name));
  if (pruned.length > 0) fsyncPath(folder);
  return { pruned, kept: keep.size };
}

/**
 * Backs up into `folder` under a name of the time (`backupName`), then applies the retention to the
 * copies there. Two backups in one millisecond (the admin's button and the timer) get the next free one.
 */
export function backupIntoFolder(db: Db, dbPath: string, folder: string, now: Date, retention: Retention): FolderBackupReport {
  let at = now.getTime();
  while (existsSync(join(folder, backupName(dbPath, new Date(at))))) at += 1;
  const report = backupDatabase(db, join(folder, backupName(dbPath, new Date(at))));
  return { ...report, ...pruneBackups(resolve(folder), dbPath, retention) };
}
