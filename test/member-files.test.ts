import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { punchcard, punchcardJson } from './helpers/cli.ts';

let dir: string;
let db: string;
let projectId: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-member-files-'));
  db = join(dir, 'shop.db');
  projectId = punchcardJson(['--db', db, 'projects', 'create', '--name', 'Shop']).project.id;
  const catalog = join(dir, 'catalog.json');
  writeFileSync(catalog, JSON.stringify({ levels: [
    { key: 'bronze', level: 1, name: 'Bronze', minTotalPointsEarned: 100 },
    { key: 'silver', level: 2, name: 'Silver', minTotalPointsEarned: 500 },
  ] }));
  expect(punchcard(['--db', db, 'seed', '--project', projectId, '--file', catalog]).status).toBe(0);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const run = (args: string[]) => punchcard(['--db', db, ...args]);
const importJson = (path: string, ...extra: string[]) => {
  const result = run(['members', 'import', path, '--project', projectId, '--json', ...extra]);
  return { status: result.status, report: JSON.parse(result.stdout || '{}'), stderr: result.stderr };
};

// The members the export and erase tests look at, imported in Punchcard's own columns.
const CSV = [
  'externalId,email,name,balance,level,joinedAt',
  'ann,ann@example.com,Ann B.,600,Silver,2021-03-04T05:06:07Z',
  '"cee, jr",,"Cee ""the third""",120,1,',
  'dan,dan@example.com,Dan,50,Silver,',
  'fay,,Fay,0,,',
  'bob,bob@example.com,Bob,10,,',
  '',
].join('\n');

beforeAll(() => {
  const imported = importJson(file('members.csv', CSV));
  expect(imported.status, imported.stderr).toBe(0);
  expect(imported.report).toMatchObject({ created: 5, pointsImported: 780 });
});

describe('punchcard members export', { timeout: 60_000 }, () => {
  it('writes CSV and JSON lines with balances and levels, and its CSV imports into another project unchanged', () => {
    const csv = run(['members', 'export', '--project', projectId]);
    expect(csv.status).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('externalId,email,name,balance,totalPointsEarned,level,levelName,joinedAt');
    expect(lines).toContain('ann,ann@example.com,Ann B.,600,600,2,Silver,2021-03-04T05:06:07.000Z');
    expect(lines.some((line) => line.startsWith('"cee, jr",,"Cee ""the third""",120,120,1,Bronze,'))).toBe(true);
    // Dan's 50 lifetime points reach no level; the Silver the file gave him is kept.
    expect(lines.some((line) => line.startsWith('dan,dan@example.com,Dan,50,50,2,Silver,'))).toBe(true);

    const jsonl = run(['members', 'export', '--project', projectId, '--format', 'jsonl']).stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(jsonl.map((m) => m.externalId)).toEqual(['ann', 'cee, jr', 'dan', 'fay', 'bob']);
    expect(jsonl[0]).toEqual({ externalId: 'ann', email: 'ann@example.com', name: 'Ann B.', balance: 600, totalPointsEarned: 600, level: 2, levelName: 'Silver', joinedAt: '2021-03-04T05:06:07.000Z' });

    const output = join(dir, 'export.csv');
    expect(run(['members', 'export', '--project', projectId, '--output', output]).status).toBe(0);
    expect(statSync(output).mode & 0o777).toBe(0o600);
    expect(readFileSync(output, 'utf8')).toBe(csv.stdout);
    expect(run(['members', 'export', '--project', projectId, '--output', output]).stderr)
      .toBe(`punchcard: ${output} already exists; choose a new file (one is never overwritten)\n`);

    const other = punchcardJson(['--db', db, 'projects', 'create', '--name', 'Other']).project.id;
    const moved = punchcard(['--db', db, 'members', 'import', output, '--project', other, '--json']);
    expect(moved.status, moved.stdout).toBe(0);
    expect(JSON.parse(moved.stdout)).toMatchObject({ created: 5, pointsImported: 600 + 120 + 50 + 10, errors: [] });
    // That project has no levels: the levels the file names are reported, the members imported.
    expect(JSON.parse(moved.stdout).warnings.map((w: { line: number }) => w.line)).toEqual([2, 3, 4]);
    const again = run(['members', 'export', '--project', other]).stdout.split('\n');
    // Same members, balances and levels (the other project has no levels, so everyone is level 0).
    expect(again.find((line) => line.startsWith('ann,'))).toBe('ann,ann@example.com,Ann B.,600,600,0,,2021-03-04T05:06:07.000Z');
  });
});

describe('punchcard members data and erase', { timeout: 60_000 }, () => {
  it('prints everything held about one member, to stdout or a new 0600 file', () => {
    const data = JSON.parse(run(['members', 'data', 'ann', '--project', projectId]).stdout);
    expect(data.member).toMatchObject({ externalId: 'ann', email: 'ann@example.com', points: 600 });
    expect(data.transactions).toEqual([expect.objectContaining({ amount: 600, type: 'IMPORTED', description: 'Opening balance from CSV (members.csv, line 2)' })]);
    const output = join(dir, 'ann.json');
    expect(run(['members', 'data', 'ann', '--project', projectId, '--output', output]).stdout).toBe(`Wrote ann's data to ${output} (1 transactions).\n`);
    expect(statSync(output).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(output, 'utf8')).member.email).toBe('ann@example.com');
    expect(run(['members', 'data', 'ann', '--project', projectId, '--output', output]).status).toBe(1);
  });

  it('erases only with --yes; the ledger keeps the balance under an anonymous id', () => {
    const refused = run(['members', 'erase', 'ann', '--project', projectId]);
    expect(refused).toMatchObject({ status: 1, stdout: '' });
    expect(refused.stderr).toMatch(/run again with --yes/);
    expect(JSON.parse(run(['members', 'data', 'ann', '--project', projectId]).stdout).member.email).toBe('ann@example.com');

    expect(punchcardJson(['--db', db, 'members', 'erase', 'ann', '--project', projectId, '--yes', '--json'])).toEqual({ success: true, deleted: 'ann' });
    expect(run(['members', 'data', 'ann', '--project', projectId]).stderr).toBe('punchcard: No member with externalId "ann" in this project\n');
    const copy = new Database(db, { readonly: true });
    try {
      // (The other project's copy of ann, imported above, is another member.)
      expect(copy.prepare("SELECT count(*) FROM members WHERE project_id = ? AND (email = 'ann@example.com' OR name = 'Ann B.')").pluck().get(projectId)).toBe(0);
      expect(copy.prepare('SELECT points FROM members WHERE project_id = ? AND erased_at IS NOT NULL').pluck().all(projectId)).toEqual([600]);
    } finally {
      copy.close();
    }
    expect(run(['doctor']).status).toBe(0);
  });
});
