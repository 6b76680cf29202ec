import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/connection.ts';

const dir = mkdtempSync(join(tmpdir(), 'punchcard-connection-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('openDatabase', () => {
  it('opens a ledger-grade connection: WAL, fsync on every commit, foreign keys, busy timeout', () => {
    const path = join(dir, 'nested', 'folder', 'a.db');
    const db = openDatabase(path);
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(2); // FULL
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    db.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('uses synchronous=NORMAL only when asked', () => {
    const db = openDatabase(join(dir, 'b.db'), { synchronous: 'NORMAL' });
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    db.close();
  });

  // Node's recursive mkdirSync spins forever on this (mkdir answers ENOENT under an existing parent).
  // A child process, so a regression fails on the timeout instead of hanging the test run.
  it.runIf(existsSync('/proc/self'))('fails, rather than hanging, when the folder cannot be created', () => {
    const script = "import('./src/db/connection.ts').then((m) => m.openDatabase('/proc/punchcard-no-such-folder/a.db'))";
    const child = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 20_000 });
    expect(child.signal).toBeNull();
    expect(child.status).not.toBe(0);
    expect(child.stderr).toMatch(/ENOENT/);
  });
});
