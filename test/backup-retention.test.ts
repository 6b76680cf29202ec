import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { punchcard, punchcardJson } from './helpers/cli.ts';

// `punchcard backup FOLDER --keep N --keep-weekly W`: the nightly backup the systemd timer and the
// cron line of docs/production.md run. Copies are named after the time; only those are pruned.

let dir: string;
let db: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-retention-'));
  db = join(dir, 'punchcard.db');
  punchcardJson(['--db', db, 'projects', 'create', '--name', 'Shop']);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DAY = 86_400_000;
/** A copy's name as the docs give it: the database's name and the UTC time, `punchcard-2026-05-01T031500.123Z.db`. */
const copyName = (at: Date) => `punchcard-${at.toISOString().slice(0, 10)}T${at.toISOString().slice(11, 23).replaceAll(':', '')}Z.db`;
/** The Monday (UTC) of a copy's week. */
const mondayOf = (name: string) => {
  const day = new Date(`${name.slice(10, 20)}T00:00:00Z`);
  return new Date(day.getTime() - ((day.getUTCDay() + 6) % 7) * DAY).toISOString().slice(0, 10);
};

describe('punchcard backup FOLDER --keep', () => {
  it('names the copy after the time, keeps the 7 newest and the newest of each of 4 weeks, and deletes only older copies it made', () => {
    const folder = join(dir, 'backups');
    mkdirSync(folder);
    const now = Date.now();
    // Forty nightly copies from earlier runs, and files the command must never touch.
    const earlier = Array.from({ length: 40 }, (_, i) => copyName(new Date(now - (i + 1) * DAY)));
    const strangers = ['notes.txt', 'punchcard-manual.db', 'punchcard-2026-05-01.db', 'other-2026-05-01T031500.000Z.db', 'punchcard-2026-05-01T031500.000Z.db.bak'];
    for (const name of [...earlier, ...strangers]) writeFileSync(join(folder, name), 'old');

    const result = punchcard(['--db', db, 'backup', folder, '--keep', '7', '--keep-weekly', '4', '--json']);
    expect(result.stderr).toBe('');
    const report = JSON.parse(result.stdout) as { file: string; pruned: string[]; kept: number };
    expect(dirname(report.file)).toBe(folder);
    expect(basename(report.file)).toMatch(/^punchcard-\d{4}-\d{2}-\d{2}T\d{6}\.\d{3}Z\.db$/);
    expect(statSync(report.file).mode & 0o777).toBe(0o600);
    const copy = new Database(report.file, { readonly: true });
    expect(copy.prepare('SELECT name FROM projects').pluck().all()).toEqual(['Shop']);
    copy.close();

    // Expected: the 7 newest, then the newest of each week until 4 weeks are kept.
    const own = [basename(report.file), ...earlier].sort().reverse();
    const expected = new Set(own.slice(0, 7));
    const weeks = new Set<string>();
    for (const name of own) {
      if (weeks.size === 4 || weeks.has(mondayOf(name))) continue;
      weeks.add(mondayOf(name));
      expected.add(name);
    }
    // Seven days always hold the last two weeks' newest copies, so two older weeks add one each.
    expect(expected.size).toBe(9);
    expect(report.kept).toBe(9);
    expect(readdirSync(folder).sort()).toEqual([...expected, ...strangers].sort());
    expect(report.pruned).toEqual(own.filter((name) => !expected.has(name)).reverse());

    // The text output says what it kept and deleted.
    const again = punchcard(['--db', db, 'backup', `${folder}/`, '--keep', '1']);
    expect(again.status).toBe(0);
    expect(again.stdout).toMatch(/^1 copy of this database in the folder; deleted the older punchcard-/m);
    expect(readdirSync(folder).filter((name) => !strangers.includes(name))).toHaveLength(1);
  });

  it('refuses --keep with a file, and a folder that does not exist, with one line each', () => {
    const withFile = punchcard(['--db', db, 'backup', join(dir, 'one.db'), '--keep', '3']);
    expect(withFile.status).toBe(1);
    expect(withFile.stderr).toMatch(/^punchcard: --keep and --keep-weekly need a FOLDER, not a file/);
    const missing = punchcard(['--db', db, 'backup', join(dir, 'nowhere/'), '--keep', '3']);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toMatch(/^punchcard: No folder .*nowhere to write the backup into: create it first/);
    expect(punchcard(['--db', db, 'backup', join(dir, 'backups'), '--keep', '0']).stderr).toMatch(/--keep must be a positive whole number/);
  });
});
