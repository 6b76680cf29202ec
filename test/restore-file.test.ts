import { copyFileSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { punchcard, punchcardJson, spawnServer } from './helpers/cli.ts';

let dir: string;
let db: string;
let projectId: string;
let backup: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-restore-file-'));
  db = join(dir, 'shop.db');
  projectId = punchcardJson(['--db', db, 'seed', '--demo']).project.id;
  backup = join(dir, 'backup.db');
  expect(punchcard(['--db', db, 'backup', backup]).status).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const balance = (path: string, externalId: string): number => {
  const copy = new Database(path, { readonly: true });
  try {
    return copy.prepare('SELECT points FROM members WHERE external_id = ?').pluck().get(externalId) as number;
  } finally {
    copy.close();
  }
};

/** A copy of the backup changed by `change`, to feed restore something that must fail a check. */
function spoiled(name: string, change: (copy: Database.Database) => void): string {
  const file = join(dir, name);
  copyFileSync(backup, file);
  const copy = new Database(file);
  change(copy);
  copy.close();
  return file;
}

describe('punchcard restore FILE', { timeout: 60_000 }, () => {
  it('refuses to replace a database without --force, and leaves it as it was', () => {
    const before = balance(db, 'carol');
    expect(punchcard(['--db', db, 'points', 'add', '--project', projectId, '--member', 'carol', '--amount', '7']).status).toBe(0);
    const refused = punchcard(['--db', db, 'restore', backup]);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain('already exists');
    expect(balance(db, 'carol')).toBe(before + 7);
  });

  it('refuses while a server runs on the database, even with --force', async () => {
    const server = await spawnServer(db);
    try {
      const refused = punchcard(['--db', db, 'restore', backup, '--force']);
      expect(refused.status).toBe(1);
      expect(refused.stderr).toContain('A server is running');
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
    }
  });

  it('refuses a file that fails a check, naming it, and replaces nothing', () => {
    const garbage = join(dir, 'garbage.db');
    writeFileSync(garbage, 'this is not a database, just some text that is long enough to have a header'.repeat(100));
    const newer = spoiled('newer.db', (copy) => copy.prepare("INSERT INTO schema_migrations VALUES (9999, 'future', 'x', '2030-01-01')").run());
    const unbalanced = spoiled('unbalanced.db', (copy) => copy.prepare("UPDATE members SET points = points + 5 WHERE external_id = 'alice'").run());
    const cases: [string, string][] = [
      [garbage, 'not a SQLite database'],
      [newer, 'written by a newer Punchcard'],
      [unbalanced, 'ledger invariant'],
      [join(dir, 'no-such-file.db'), 'No backup file at'],
    ];
    const carol = balance(db, 'carol');
    for (const [file, message] of cases) {
      const refused = punchcard(['--db', db, 'restore', file, '--force']);
      expect(refused.status, file).toBe(1);
      expect(refused.stderr).toContain(message);
    }
    expect(balance(db, 'carol')).toBe(carol);
    expect(readdirSync(dir).filter((name) => name.includes('.replaced-') || name.startsWith('.punchcard-restore-'))).toEqual([]);
  });

  it('puts the backup in place after its checks, keeping the replaced database aside', () => {
    const now = balance(db, 'carol');
    const restored = punchcard(['--db', db, 'restore', backup, '--force']);
    expect(restored.stderr).toBe('');
    expect(restored.status).toBe(0);
    expect(restored.stdout).toContain(`Restored ${db} from ${backup}.`);
    expect(restored.stdout).toContain('integrity ok');
    expect(restored.stdout).toContain('Master key: matches');
    const kept = /kept at (\S+);/.exec(restored.stdout)?.[1];
    expect(kept).toMatch(/shop\.db\.replaced-/);
    expect(balance(kept!, 'carol')).toBe(now); // the replaced database, whole, with the award made after the backup
    expect(balance(db, 'carol')).toBe(now - 7);
    expect(statSync(db).mode & 0o777).toBe(0o600);
    expect(existsSync(backup)).toBe(true); // the backup is copied, never moved
    const doctor = punchcard(['--db', db, 'doctor']);
    expect(doctor.stdout).toContain('every balance equals the sum');
  });

  it('restores into a new path without --force, and as JSON', () => {
    const report = punchcardJson(['--db', join(dir, 'fresh.db'), 'restore', backup]);
    expect(report).toMatchObject({ db: join(dir, 'fresh.db'), file: backup, replaced: null, migrated: [], keyProblem: null });
    expect(report.members).toBeGreaterThan(0);
  });

  it('takes a file or --from, not both, and --timestamp only with --from', () => {
    expect(punchcard(['--db', db, 'restore']).stderr).toContain('needs a backup FILE');
    expect(punchcard(['--db', db, 'restore', backup, '--from', 'file:///x']).stderr).toContain('not both');
    expect(punchcard(['--db', db, 'restore', backup, '--timestamp', '2026-01-01T00:00:00Z']).stderr).toContain('--timestamp needs --from');
  });
});
