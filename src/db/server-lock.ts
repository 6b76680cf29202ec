import { dirname } from 'node:path';
import { openSqlite } from './sqlite.ts';
import { ensureDirectory } from './connection.ts';

export interface ServerLock {
  release(): void;
}

/**
 * One server per database file. The lock is SQLite's own exclusive lock on a small file beside the
 * database (`<db>.lock`), held for the server's life: the operating system drops it when the
 * process ends, however it ends (SIGKILL, power loss), so a crashed server never leaves a stale
 * lock behind. The CLI's commands do not take it: they are short and run beside the server.
 */
export function lockForServer(dbPath: string): ServerLock {
  const lock = tryLock(dbPath);
  if (!lock) throw new Error(`another Punchcard server is already running on ${dbPath} (it holds ${dbPath}.lock); stop it first, or give this one its own --db`);
  return lock;
}

/** Whether a server is running on `dbPath` now (for commands that must not work under one, such as restore). */
export function serverRunning(dbPath: string): boolean {
  const lock = tryLock(dbPath);
  lock?.release();
  return lock === null;
}

function tryLock(dbPath: string): ServerLock | null {
  const lockFile = `${dbPath}.lock`;
  ensureDirectory(dirname(dbPath));
  const lock = openSqlite(lockFile, { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE'); // once written, the connection keeps its exclusive lock until closed
    // What the file holds does not matter, only the lock: no journal file and no fsync (the write
    // that takes the lock waited 50-80 ms for the disk at every start).
    lock.pragma('journal_mode = MEMORY');
    lock.pragma('synchronous = OFF');
    lock.exec('CREATE TABLE IF NOT EXISTS server (pid INTEGER NOT NULL)');
    lock.transaction(() => {
      lock.exec('DELETE FROM server');
      lock.prepare('INSERT INTO server (pid) VALUES (?)').run(process.pid);
    })();
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw error;
  }
  return { release: () => lock.close() };
}
