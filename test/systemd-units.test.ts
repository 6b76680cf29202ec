import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_MASTER_KEY } from './helpers/server.ts';
import { onlyBlock, readEnvironmentFile, ROOT } from './helpers/docs.ts';

// The systemd units in docs/ (the server, the nightly backup and its timer) as systemd 252 reads
// them, and the commands the backup's unit and its cron line run, run for real on a scratch copy of
// /var/lib/punchcard with the environment file of docs/production.md.

const ANALYZE = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((path) => existsSync(path));
if (!ANALYZE && process.env.CI) throw new Error('systemd-analyze is missing: apt-get install systemd (.ci/run does)');

const UNITS = readdirSync(join(ROOT, 'docs')).filter((name) => /\.(service|timer)$/.test(name));
const CHECKOUT = ROOT.replace(/\/$/, '');

let dir: string;
let state: string;
/** The units' and the docs' paths on this machine: Node is this Node, /opt/punchcard this checkout, /var/lib/punchcard a scratch folder. */
const here = (text: string) => text.replaceAll('/usr/bin/node', process.execPath).replaceAll('/opt/punchcard', CHECKOUT)
  .replaceAll('/var/lib/punchcard', state).replaceAll('/etc/punchcard/punchcard.env', join(dir, 'punchcard.env'));

/** production.md's environment file, its placeholders filled: the master key, a file replica for S3. */
const environment = () => readEnvironmentFile(here(onlyBlock('docs/production.md', 'dotenv').text)
  .replace('PUNCHCARD_MASTER_KEY=…', `PUNCHCARD_MASTER_KEY=${TEST_MASTER_KEY}`).replace('s3://my-bucket/punchcard', `file://${dir}/replica`));

/** The backup copies in the scratch /var/lib/punchcard/backups. */
const copies = () => readdirSync(join(state, 'backups')).filter((name) => /^punchcard-.*Z\.db$/.test(name)).sort();

/** Nightly copies from twenty earlier nights, as earlier runs left them. */
function earlierNights(): void {
  for (let night = 1; night <= 20; night++) {
    const at = new Date(Date.now() - night * 86_400_000).toISOString();
    writeFileSync(join(state, 'backups', `punchcard-${at.slice(0, 10)}T${at.slice(11, 23).replaceAll(':', '')}Z.db`), 'an earlier copy');
  }
}

describe.skipIf(!ANALYZE)('the systemd units and the cron line of the docs', {
  meta: ANALYZE ? {} : { skipReason: 'systemd-analyze is missing: apt-get install systemd (.ci/run does)' },
}, () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'punchcard-units-'));
    state = join(dir, 'var-lib-punchcard');
    // What StateDirectory= makes, and the database the server's first start would leave.
    mkdirSync(join(state, 'backups'), { recursive: true });
    const env = environment();
    execFileSync(process.execPath, [join(ROOT, 'cli/punchcard.mjs'), 'projects', 'create', '--name', 'Shop', '--json'], { env: { PATH: process.env.PATH, ...env } });
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('pass systemd-analyze verify without a warning', () => {
    expect(UNITS).toEqual(expect.arrayContaining(['punchcard.service', 'punchcard-backup.service', 'punchcard-backup.timer']));
    const units = join(dir, 'units');
    mkdirSync(units);
    for (const unit of UNITS) writeFileSync(join(units, unit), here(readFileSync(join(ROOT, 'docs', unit), 'utf8')));
    const verified = spawnSync(ANALYZE!, ['verify', ...UNITS.map((unit) => join(units, unit))], { encoding: 'utf8' });
    expect(verified.stderr).toBe('');
    expect(verified.status).toBe(0);
    // The timer starts the backup service, nightly.
    const timer = readFileSync(join(ROOT, 'docs/punchcard-backup.timer'), 'utf8');
    expect(timer).toMatch(/^OnCalendar=\*-\*-\* 03:15:00$/m);
    expect(timer).toMatch(/^Persistent=true$/m);
  });

  it("backs up and keeps 7 daily and 4 weekly copies, with the backup unit's command and environment", () => {
    const unit = readFileSync(join(ROOT, 'docs/punchcard-backup.service'), 'utf8');
    expect(unit).toMatch(/^EnvironmentFile=\/etc\/punchcard\/punchcard\.env$/m);
    expect(unit).toMatch(/^StateDirectory=punchcard punchcard\/backups$/m);
    const command = here(/^ExecStart=(.+)$/m.exec(unit)![1]!).split(' ');
    earlierNights();
    const run = spawnSync(command[0]!, command.slice(1), { env: { PATH: process.env.PATH, ...environment() }, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toMatch(/^Backed up \d+ bytes to .*\/backups\/punchcard-.*Z\.db/);
    // The new copy, the 6 nights before it, and the newest of the two weeks before those.
    expect(copies()).toHaveLength(9);
  });

  it('does the same from the cron line, run by sh as cron runs it', () => {
    const line = onlyBlock('docs/production.md', 'crontab').text.trim();
    const fields = line.split(/\s+/);
    expect(fields.slice(0, 6)).toEqual(['15', '3', '*', '*', '*', 'root']);
    const command = line.split(/\s+/).slice(6).join(' ');
    expect(command).not.toContain('%'); // cron would end the command there
    const unit = readFileSync(join(ROOT, 'docs/punchcard-backup.service'), 'utf8');
    expect(command.endsWith(/^ExecStart=(.+)$/m.exec(unit)![1]!)).toBe(true);
    // The environment file as root would source it; this test is not root, so runuser drops out.
    writeFileSync(join(dir, 'punchcard.env'), here(onlyBlock('docs/production.md', 'dotenv').text)
      .replace('PUNCHCARD_MASTER_KEY=…', `PUNCHCARD_MASTER_KEY=${TEST_MASTER_KEY}`), { mode: 0o600 });
    for (const name of copies()) rmSync(join(state, 'backups', name));
    earlierNights();
    const run = spawnSync('/bin/sh', ['-c', here(command).replace('exec runuser -u punchcard -- ', 'exec ')], { env: { PATH: process.env.PATH }, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(copies()).toHaveLength(9);
  });
});
