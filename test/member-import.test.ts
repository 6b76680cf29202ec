import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, punchcard, punchcardJson } from './helpers/cli.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

// `punchcard members import` (issue 50): each programme's export through its reader, --map, both
// modes, pending points, the dry run's report, files that must be read and files that must be
// refused whole, re-runs, a corrected copy, and a run killed half-way. Through the real command and
// SQLite file; the database is read directly to check the ledger.

let dir: string;
let db: string;
let projectId: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-member-import-'));
  db = join(dir, 'shop.db');
  projectId = punchcardJson(['--db', db, 'projects', 'create', '--name', 'Shop']).project.id;
  const catalog = join(dir, 'catalog.json');
  writeFileSync(catalog, JSON.stringify({ levels: [
    { key: 'silver', level: 1, name: 'Silver', minTotalPointsEarned: 500 },
    { key: 'gold', level: 2, name: 'Gold', minTotalPointsEarned: 2000 },
  ] }));
  expect(punchcard(['--db', db, 'seed', '--project', projectId, '--file', catalog]).status).toBe(0);
  // Dates without a time are midnight in the project's time zone.
  write('Europe/Paris');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(timeZone: string): void {
  const handle = new Database(db);
  try {
    handle.prepare('UPDATE projects SET timezone = ? WHERE id = ?').run(timeZone, projectId);
  } finally {
    handle.close();
  }
}

function query<T = any>(sql: string, ...params: unknown[]): T[] {
  const handle = new Database(db, { readonly: true });
  try {
    return handle.prepare(sql).all(...params) as T[];
  } finally {
    handle.close();
  }
}

const file = (name: string, content: string | Buffer) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};
const run = (path: string, ...extra: string[]) => punchcard(['--db', db, 'members', 'import', path, '--project', projectId, ...extra]);
const summaryOf = (path: string, ...extra: string[]) => {
  const result = run(path, '--json', ...extra);
  return { status: result.status, summary: JSON.parse(result.stdout || '{}'), stderr: result.stderr };
};

interface MemberState { external_id: string; email: string | null; name: string | null; points: number; total_points_earned: number; level_floor: number; created_at: string }
const memberState = (externalId: string) =>
  query<MemberState>('SELECT external_id, email, name, points, total_points_earned, level_floor, created_at FROM members WHERE external_id = ?', externalId)[0];
const imported = (externalId: string) => query<{ amount: number; type: string; source: string; actor: string; description: string }>(`SELECT t.amount, t.type,
  t.source, t.actor, t.description FROM transactions t JOIN members m ON m.id = t.member_id WHERE m.external_id = ? ORDER BY t.id`, externalId);
const pending = (externalId: string) => query<{ points: number }>('SELECT p.points FROM pending_points p JOIN members m ON m.id = p.member_id WHERE m.external_id = ?', externalId)
  .reduce((sum, row) => sum + row.points, 0);
/** Everything an import could write, to show that a refused file wrote none of it. */
const written = () => query('SELECT (SELECT count(*) FROM members) AS members, (SELECT count(*) FROM transactions) AS transactions, (SELECT count(*) FROM pending_points) AS pending, (SELECT count(*) FROM member_imports) AS runs')[0];
const sumOfBalances = () => query<{ total: number }>('SELECT coalesce(sum(points), 0) AS total FROM members WHERE project_id = ?', projectId)[0]!.total;

describe('punchcard members import, each programme\'s export', { timeout: 120_000 }, () => {
  it('reads Smile\'s email,points, guessing the format from the header and saying so', () => {
    const result = run(file('smile-export.csv', 'email,points\nann@example.com,600\nBOB@example.com,40\n'));
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toContain('read as Smile (guessed from its header; pass --from to say otherwise)');
    expect(result.stdout).toContain('Members: 2 new, 0 updated, 0 unchanged, 0 skipped (of 2 rows).');
    expect(result.stdout).toContain('Sum of balances: 0 before, 640 after.');
    // Email-only rows: members keyed by the email, as stores compare it (lower case).
    expect(memberState('bob@example.com')).toMatchObject({ email: 'BOB@example.com', points: 40 });
    expect(imported('ann@example.com')).toEqual([{ amount: 600, type: 'IMPORTED', source: 'import', actor: 'cli', description: 'Opening balance from Smile (smile-export.csv, line 2)' }]);
  });

  it('reads LoyaltyLion\'s approved, pending and spent points apart, and keeps its tiers as levels', () => {
    const path = file('loyaltylion.csv', [
      'email,first_name,last_name,points_approved,points_pending,points_spent,tier,referral_url',
      'cat@example.com,Cat,Cole,300,120,900,Gold,https://x/r/1',
      'dan@example.com,Dan,,50,0,0,Bronze,',
      '',
    ].join('\n'));
    const { status, summary } = summaryOf(path);
    expect(status).toBe(0);
    expect(summary).toMatchObject({ source: 'loyaltylion', guessed: true, pending: 'pending', created: 2, pointsImported: 350, pendingImported: 120,
      columns: { email: 'email', balance: 'points_approved', pending: 'points_pending', level: 'tier', firstName: 'first_name', lastName: 'last_name' },
      ignoredColumns: ['referral_url'] });
    expect(summary.warnings).toEqual([{ line: 3, message: 'dan@example.com level "Bronze" is not one of the project\'s levels (2 Gold, 1 Silver); none was kept' }]);
    // 300 lifetime points reach no level; the tier Gold is kept as the member's lowest level.
    expect(memberState('cat@example.com')).toMatchObject({ name: 'Cat Cole', points: 300, total_points_earned: 300, level_floor: 2 });
    expect(pending('cat@example.com')).toBe(120);
    expect(punchcardJson(['--db', db, 'members', 'show', 'cat@example.com', '--project', projectId])).toMatchObject({ member: { level: 2, levelName: 'Gold' }, pendingPoints: 120 });

    // The same export with --pending-as-available, into another project: one entry of approved + pending.
    const other = punchcardJson(['--db', db, 'projects', 'create', '--name', 'Other']).project.id;
    const available = JSON.parse(punchcard(['--db', db, 'members', 'import', path, '--project', other, '--pending-as-available', '--json']).stdout);
    expect(available).toMatchObject({ pending: 'available', pointsImported: 470, pendingImported: 0 });
    // --pending-days has the API's limit: a number past it is refused before anything is read.
    const tooFar = punchcard(['--db', db, 'members', 'import', path, '--project', other, '--pending-days', '99999999']);
    expect(tooFar.status).toBe(1);
    expect(tooFar.stderr).toContain('--pending-days must be at most 3650 (got 99999999)');
  });

  it('reads WooCommerce Points & Rewards\' balances by user id (tab-separated, as `wp db query` writes them), and refuses the raw table', () => {
    const path = file('wc-points.tsv', 'user_id\tuser_email\tdisplay_name\tpoints_balance\n12\teve@example.com\tEve\t75\n13\tfay@example.com\tFay\t0\n');
    const { status, summary } = summaryOf(path);
    expect(status).toBe(0);
    expect(summary).toMatchObject({ source: 'woocommerce-points', created: 2, pointsImported: 75 });
    expect(memberState('12')).toMatchObject({ email: 'eve@example.com', name: 'Eve', points: 75 });
    const before = written();
    const raw = run(file('wc-table.csv', 'id,user_id,points,points_balance,order_id,date\n1,12,75,75,900,2024-01-01 10:00:00\n'));
    expect(raw.status).toBe(1);
    expect(raw.stderr).toMatch(/line 1: this is the wc_points_rewards_user_points table itself, one row per award: export each customer's balance .*; nothing was imported/);
    expect(written()).toEqual(before);
  });

  it('reads myCred\'s balances (semicolons), and another point type with --map', () => {
    const path = file('mycred.csv', 'user_id;user_email;display_name;mycred_default;mycred_gold\n21;gil@example.com;Gil;"1,5";3\n22;hal@example.com;Hal;12.00;4\n');
    const { status, summary } = summaryOf(path, '--dry-run');
    expect(status).toBe(1);
    expect(summary.errors).toEqual([{ line: 2, message: '"balance" must be a whole number of points (write 1200, not 1,200 or 12.5)' }]);
    const gold = summaryOf(path, '--from', 'mycred', '--map', 'balance=mycred_gold');
    expect(gold.summary).toMatchObject({ source: 'mycred', guessed: false, created: 2, pointsImported: 7, columns: { balance: 'mycred_gold' } });
    expect(memberState('22')).toMatchObject({ points: 4 });
  });

  it('--map reads any other export: column names match without regard to case, spaces, dashes or underscores', () => {
    const path = file('other.csv', '\ufeffCustomer-ID;E Mail;POINTS_BALANCE;Joined;Birth Date\nc-1;ida@example.com;15;2024-05-01;1990-02-03\nc-2;jo@example.com;0;2024-05-01 18:30;\n');
    const { status, summary } = summaryOf(path, '--map', 'externalId=customer id,email=e-mail,balance=Points Balance,joinedAt=joined,birthday=birth_date');
    expect(status, JSON.stringify(summary)).toBe(0);
    expect(summary).toMatchObject({ source: 'csv', created: 2, pointsImported: 15 });
    // A date alone is midnight in the project's time zone (Paris, UTC+2 in May); a time without a zone is that time there.
    expect(memberState('c-1')!.created_at).toBe('2024-04-30T22:00:00.000Z');
    expect(memberState('c-2')!.created_at).toBe('2024-05-01T16:30:00.000Z');
    expect(query('SELECT date_of_birth FROM members WHERE external_id = ?', 'c-1')).toEqual([{ date_of_birth: '1990-02-03' }]);
    expect(run(file('unknown.csv', 'Kunde,Punkte\nx,1\n')).stderr).toMatch(/cannot tell which programme wrote this file from its header \(Kunde, Punkte\): pass --from smile\|loyaltylion\|woocommerce-points\|mycred\|csv, or name the columns with --map field=Column; nothing was imported/);
  });
});

describe('the samples of docs/operations.md', { timeout: 120_000 }, () => {
  it('each imports (a dry run) as the programme the docs say', () => {
    const doc = readFileSync(new URL('../docs/operations.md', import.meta.url), 'utf8');
    const samples = [...doc.matchAll(/```csv (\S+)( --map [^\n]+)?\n([\s\S]*?)```/g)];
    const sources = { 'smile.csv': 'smile', 'loyaltylion.csv': 'loyaltylion', 'wc-points.tsv': 'woocommerce-points', 'mycred.csv': 'mycred', 'rewards.csv': 'csv',
      'punchcard.csv': 'csv' } as Record<string, string>;
    expect(samples.map((sample) => sample[1])).toEqual(Object.keys(sources));
    for (const [, name, map, content] of samples) {
      const { status, summary } = summaryOf(file(`sample-${name}`, content!), '--dry-run', ...(map ? ['--map', map.trim().slice('--map '.length)] : []));
      expect(status, `${name}: ${JSON.stringify(summary.errors)}`).toBe(0);
      expect(summary.source, name).toBe(sources[name!]);
      expect(summary.rows, name).toBe(2);
      expect(summary.warnings, name).toEqual([]);
    }
  });
});

describe('punchcard members import: modes, reports, files', { timeout: 120_000 }, () => {
  it('reset sets each balance to the file\'s by one entry of the difference; running it again changes nothing', () => {
    const path = file('reset.csv', 'email,points\nann@example.com,100\nbob@example.com,40\n');
    const { summary } = summaryOf(path, '--mode', 'reset');
    expect(summary).toMatchObject({ mode: 'reset', created: 0, updated: 1, unchanged: 1, pointsImported: -500 });
    expect(imported('ann@example.com').at(-1)).toMatchObject({ amount: -500, type: 'IMPORTED', description: 'Balance set to 100 from Smile (reset.csv, line 2)' });
    expect(summaryOf(path, '--mode', 'reset').summary).toMatchObject({ updated: 0, unchanged: 2, pointsImported: 0 });
    expect(memberState('ann@example.com')).toMatchObject({ points: 100, total_points_earned: 600 });
  });

  it('a dry run reads the whole file and reports every line and every error by its line number, writing nothing', () => {
    const before = written();
    const path = file('dry.csv', [
      'externalId,email,name,balance,pending',
      'kim,kim@example.com,Kim,10,',
      'ann@example.com,,,5,',
      'lea,not-an-email,Lea,1,',
      'max,,,-4,',
      'ned,,,2.5,',
      'kim,,,3,',
      'oli,,"Oli ""O"" Quoted",0,7',
    ].join('\n'));
    const result = run(path, '--dry-run');
    expect(result.status).toBe(1);
    expect(result.stdout.split('\n').filter((line) => line.startsWith('line '))).toEqual([
      'line 2: new kim (+10 points)',
      'line 3: updated ann@example.com (+5 points)',
      'line 4: skipped: "email" must be a valid email address',
      'line 5: skipped: "balance" must be at least 0',
      'line 6: skipped: "balance" must be a whole number of points (write 1200, not 1,200 or 12.5)',
      'line 7: skipped: externalId "kim" is already on line 2',
      'line 8: new oli (7 pending)',
    ]);
    expect(result.stdout).toContain('Members: 2 new, 1 updated, 0 unchanged, 4 skipped (of 7 rows).');
    expect(written()).toEqual(before);
    // Punchcard's own columns: any other column stops the file, as a typo would lose data.
    const typo = run(file('typo.csv', 'externalId,balence\nzed,5\n'));
    expect(typo.stderr).toMatch(/line 1: unknown column\(s\) "balence"; CSV's columns are externalId, email, name, balance, .*; nothing was imported/);
    expect(written()).toEqual(before);
  });

  it('--strict refuses the whole import when a line has an error', () => {
    const before = written();
    const result = run(file('strict.csv', 'email,points\nnew1@example.com,5\nbroken,5\n'), '--strict');
    expect(result.status).toBe(1);
    expect(result.stdout).toContain('line 3: "email" must be a valid email address');
    expect(result.stdout).toContain('1 line(s) have errors: nothing was imported (--strict).');
    expect(written()).toEqual(before);
  });

  it('reads what spreadsheets write: a BOM, semicolons, quoted fields with line breaks and delimiters, CRLF', () => {
    const path = file('excel.csv', '\ufeffEmail;Points;Note\r\npia@example.com;12;"Pia ""P""; first line\r\nsecond line"\r\nquin@example.com;3;\r\n');
    const dry = run(path, '--dry-run');
    expect(dry.status).toBe(0);
    // Quin's record is on line 4: the quoted line break is inside line 2's record.
    expect(dry.stdout).toContain('line 2: new pia@example.com (+12 points)\nline 4: new quin@example.com (+3 points)');
    expect(dry.stdout).toContain('Columns ignored: Note.');
    expect(run(path).status).toBe(0);
    expect(run(path, '--dry-run').stdout).toContain('line 4: unchanged quin@example.com');
  });

  it('refuses a file it cannot read as a whole, with a clear error, writing nothing', () => {
    const before = written();
    const cases: [string, string | Buffer, RegExp][] = [
      ['utf16.csv', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('email,points\r\nx@example.com,1\r\n', 'utf16le')]), /the file is UTF-16 text; save it as UTF-8/],
      ['latin1.csv', Buffer.concat([Buffer.from('email,points,name\nzoe@example.com,5,Zo'), Buffer.from([0xe9]), Buffer.from('\n')]), /line 2: the file is not UTF-8 text \(Windows-1252 or Latin-1, most likely\)/],
      ['huge-field.csv', `email,points,name\nyan@example.com,5,"${'x'.repeat(10 * 1024 * 1024)}"\n`, /line 2: a record is longer than 1 MB/],
      ['quotes.csv', 'email,points\nzed@example.com,"5\n', /line 2: the file cannot be read as CSV: Quote Not Closed/],
      ['no-known.csv', 'Kunde,Punkte\nzed,1\n', /--from smile/],
      ['no-points.csv', 'email,name\nzed@example.com,Zed\n', /line 1: the file has no balance column; Smile's columns are email, points/],
      ['empty.csv', '', /the file is empty: it has no header row/],
    ];
    for (const [name, content, message] of cases) {
      const args = name === 'no-points.csv' ? ['--from', 'smile'] : [];
      const result = run(file(name, content), ...args);
      expect(result.status, name).toBe(1);
      expect(result.stderr, name).toMatch(message);
      expect(result.stderr, name).toContain('nothing was imported');
    }
    expect(written()).toEqual(before);
  });

  it('re-running the same file changes nothing, and a corrected copy after a run that skipped lines imports only what was left', () => {
    const broken = 'email,points\nrae@example.com,10\nsam@example,20\ntia@example.com,30\n';
    const first = summaryOf(file('batch.csv', broken));
    expect(first.summary).toMatchObject({ created: 2, skipped: 1, pointsImported: 40 });
    expect(first.status).toBe(1);
    const again = summaryOf(join(dir, 'batch.csv'));
    expect(again.summary).toMatchObject({ created: 0, updated: 0, unchanged: 2, skipped: 1, pointsImported: 0, continues: { relation: 'same file' } });
    // The shop fixes line 3 in the same file and runs it again: only Sam is new.
    const fixed = run(file('batch.csv', broken.replace('sam@example,', 'sam@example.com,')));
    expect(fixed.status).toBe(0);
    expect(fixed.stdout).toContain('looks like a corrected copy of the file imported');
    expect(fixed.stdout).toContain('Members: 1 new, 0 updated, 2 unchanged, 0 skipped (of 3 rows).');
    expect(['rae@example.com', 'sam@example.com', 'tia@example.com'].map((id) => memberState(id)!.points)).toEqual([10, 20, 30]);
  });

  it('a run killed half-way finishes when run again: every balance as the file says, once', async () => {
    const rows = 20_000;
    let expected = 0;
    const lines = ['email,points'];
    for (let i = 0; i < rows; i++) {
      const points = (i * 37) % 500;
      expected += points;
      lines.push(`killed.${i}@example.com,${points}`);
    }
    const path = file('killed.csv', `${lines.join('\n')}\n`);
    const before = sumOfBalances();
    const child = spawn(process.execPath, [BIN, '--db', db, 'members', 'import', path, '--project', projectId], {
      env: { ...process.env, PUNCHCARD_MASTER_KEY: TEST_MASTER_KEY, PUNCHCARD_LOG: 'silent' },
    });
    // Progress lines come on stderr (one per tenth of the file here, no terminal): kill at the first of the import's.
    await new Promise<void>((resolve, reject) => {
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/importing killed\.csv: \d+%/.test(stderr)) {
          child.kill('SIGKILL');
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`the import ended (${code}) before it reported progress: ${stderr}`)));
    });
    await new Promise((resolve) => child.once('exit', resolve));
    const partial = query<{ n: number }>("SELECT count(*) AS n FROM members WHERE external_id LIKE 'killed.%'")[0]!.n;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(rows);
    const rerun = summaryOf(path);
    expect(rerun.status).toBe(0);
    expect(rerun.summary).toMatchObject({ rows, continues: { relation: 'same file', finished: false }, skipped: 0 });
    expect(rerun.summary.created + rerun.summary.unchanged).toBe(rows);
    expect(sumOfBalances() - before).toBe(expected);
    expect(query("SELECT count(*) AS n FROM transactions t JOIN members m ON m.id = t.member_id WHERE m.external_id LIKE 'killed.%'")[0]).toEqual({ n: rows - rows / 500 });
    expect(punchcard(['--db', db, 'doctor']).stdout).toContain('every balance equals the sum of its transactions');
  });
});
