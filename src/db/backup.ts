import { openSqlite } from './sqlite.ts';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
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
