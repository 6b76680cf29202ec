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
  return { status: result.status, report: JSON.parse(result.stdout), stderr: result.stderr };
};

/** The opening-balance entries of the ledger, by member. */
function openingEntries(): { external_id: string; amount: number; type: string; actor: string; reference_id: string }[] {
  const copy = new Database(db, { readonly: true });
  try {
    return copy.prepare(`SELECT m.external_id, t.amount, t.type, t.actor, t.reference_id FROM transactions t JOIN members m ON m.id = t.member_id
      WHERE t.actor = 'import' ORDER BY m.external_id`).all() as never;
  } finally {
    copy.close();
  }
}

const CSV = [
  'externalId,email,name,balance,level,joinedAt',
  'ann,ann@example.com,Ann,600,Silver,2021-03-04T05:06:07Z',
  'bob,not-an-email,Bob,10,,',
  '"cee, jr",,"Cee ""the third""",120,1,',
  'dan,dan@example.com,Dan,50,Silver,',
  'ann,,,5,,',
  'eve,eve@example.com,Eve,-3,,',
  'fay,,Fay,0,,',
  '',
].join('\n');

describe('punchcard members import', { timeout: 60_000 }, () => {
  it('a dry run reports every error by line and writes nothing', () => {
    const { status, report } = importJson(file('members.csv', CSV), '--dry-run');
    expect(status).toBe(1);
    expect(report).toMatchObject({ dryRun: true, members: 7, created: 4, updated: 0, unchanged: 0, credited: 770 });
    expect(report.errors).toEqual([
      { line: 3, message: '"email" must be a valid email address' },
      { line: 6, message: 'externalId "ann" is already on line 2' },
      { line: 7, message: '"balance" must be at least 0' },
    ]);
    expect(report.warnings).toEqual([{ line: 5, message: expect.stringMatching(/^dan is at level 0, not Silver: levels follow lifetime points/) }]);
    expect(openingEntries()).toEqual([]);
    expect(punchcardJson(['--db', db, 'members', 'list', '--project', projectId]).members).toEqual([]);
  });

  it('imports the good lines, each opening balance as one ledger entry, and says which lines it skipped', () => {
    const text = run(['members', 'import', join(dir, 'members.csv'), '--project', projectId]);
    expect(text.status).toBe(1);
    expect(text.stdout).toContain('Imported 4 of 7 member(s)');
    expect(text.stdout).toContain('Error: line 3: "email" must be a valid email address');
    expect(text.stdout).toContain('Warning: line 5: dan is at level 0');
    expect(openingEntries()).toEqual([
      { external_id: 'ann', amount: 600, type: 'EARNED', actor: 'import', reference_id: 'opening-balance' },
      { external_id: 'cee, jr', amount: 120, type: 'EARNED', actor: 'import', reference_id: 'opening-balance' },
      { external_id: 'dan', amount: 50, type: 'EARNED', actor: 'import', reference_id: 'opening-balance' },
    ]); // fay's zero balance needs no entry
    const members = punchcardJson(['--db', db, 'members', 'list', '--project', projectId]).members;
    const ann = members.find((m: { externalId: string }) => m.externalId === 'ann');
    expect(ann).toMatchObject({ email: 'ann@example.com', points: 600, totalPointsEarned: 600, level: 2, levelName: 'Silver', createdAt: '2021-03-04T05:06:07.000Z' });
    expect(members.find((m: { externalId: string }) => m.externalId === 'cee, jr')).toMatchObject({ name: 'Cee "the third"', points: 120, level: 1 });
    expect(run(['doctor']).stdout).toContain('every balance equals the sum');
  });

  it('a second run changes nothing; a fixed line is imported; a changed balance is reported, not added', () => {
    const again = importJson(join(dir, 'members.csv'));
    expect(again.report).toMatchObject({ created: 0, updated: 0, unchanged: 4, credited: 0 });
    const fixed = file('fixed.jsonl', [
      JSON.stringify({ externalId: 'bob', email: 'bob@example.com', name: 'Bob', balance: 10 }),
      '',
      JSON.stringify({ externalId: 'ann', name: 'Ann B.', balance: 999 }),
      '{"externalId": "broken"',
      JSON.stringify({ externalId: 'gus', balance: 5, colour: 'red' }),
    ].join('\n'));
    const { status, report } = importJson(fixed);
    expect(status).toBe(1);
    expect(report).toMatchObject({ created: 1, updated: 1, unchanged: 0, credited: 10 });
    expect(report.errors).toEqual([{ line: 4, message: 'is not valid JSON' }, { line: 5, message: 'Unknown field "colour"' }]);
    expect(report.warnings).toEqual([{ line: 3, message: 'ann already has an opening balance of 600 from an earlier import; the file\'s 999 was not added' }]);
    expect(openingEntries().map((e) => [e.external_id, e.amount])).toEqual([['ann', 600], ['bob', 10], ['cee, jr', 120], ['dan', 50]]);
  });

  it('refuses a file it cannot read as a whole before writing anything', () => {
    const unknownColumn = run(['members', 'import', file('typo.csv', 'externalId,balence\nzed,5\n'), '--project', projectId]);
    expect(unknownColumn.status).toBe(1);
    expect(unknownColumn.stderr).toContain('unknown column(s) "balence"');
    expect(unknownColumn.stderr).toContain('nothing was imported');
    const quoting = run(['members', 'import', file('quotes.csv', 'externalId,name\nzed,"open\n'), '--project', projectId]);
    expect(quoting.status).toBe(1);
    expect(quoting.stderr).toContain('nothing was imported');
    expect(run(['members', 'import', file('members.txt', 'x'), '--project', projectId]).stderr).toContain('--format csv');
    expect(openingEntries().some((e) => e.external_id === 'zed')).toBe(false);
  });
});

describe('punchcard members export', { timeout: 60_000 }, () => {
  it('writes CSV and JSON lines with balances and levels, and its CSV imports into another project unchanged', () => {
    const csv = run(['members', 'export', '--project', projectId]);
    expect(csv.status).toBe(0);
    const lines = csv.stdout.trim().split('\n');
    expect(lines[0]).toBe('externalId,email,name,balance,totalPointsEarned,level,levelName,joinedAt');
    expect(lines).toContain('ann,ann@example.com,Ann B.,600,600,2,Silver,2021-03-04T05:06:07.000Z');
    expect(lines.some((line) => line.startsWith('"cee, jr",,"Cee ""the third""",120,120,1,Bronze,'))).toBe(true);

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
    expect(JSON.parse(moved.stdout)).toMatchObject({ created: 5, credited: 600 + 120 + 50 + 10, errors: [] });
    // That project has no levels: the levels the file names are reported, the members imported.
    expect(JSON.parse(moved.stdout).warnings.map((w: { line: number }) => w.line)).toEqual([2, 3]);
    const again = run(['members', 'export', '--project', other]).stdout.split('\n');
    // Same members, balances and levels (the other project has no levels, so everyone is level 0).
    expect(again.find((line) => line.startsWith('ann,'))).toBe('ann,ann@example.com,Ann B.,600,600,0,,2021-03-04T05:06:07.000Z');
  });
});

describe('punchcard members data and erase', { timeout: 60_000 }, () => {
  it('prints everything held about one member, to stdout or a new 0600 file', () => {
    const data = JSON.parse(run(['members', 'data', 'ann', '--project', projectId]).stdout);
    expect(data.member).toMatchObject({ externalId: 'ann', email: 'ann@example.com', points: 600 });
    expect(data.transactions).toEqual([expect.objectContaining({ amount: 600, referenceId: 'opening-balance' })]);
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
