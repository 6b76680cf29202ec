// `punchcard members import` of a Smile-format export, measured (issue 50's targets):
//   npm run bench:import                     100,000 rows, then the same file again
//   IMPORT_ROWS=1000000 npm run bench:import  a million rows (several minutes)
// Writes an `email,points` file, creates a project, imports the file with the command pinned to
// one core (taskset), and reads the wall time, the CPU time and the peak RSS from GNU time. Checks
// that the sum of balances afterwards is the file's sum exactly, then imports the same file again
// and checks that it changed nothing. Prints one line per run and the machine's foreign load.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BIN } from '../test/helpers/cli.ts';
import { watchForeignLoad } from './machine.ts';
import { pinned, SERVER_CORE } from './processes.ts';
import { BENCH_MASTER_KEY, setting } from './settings.ts';

const ROWS = setting('IMPORT_ROWS', 100_000, { integer: true, min: 1 });
const env = { ...process.env, PUNCHCARD_MASTER_KEY: BENCH_MASTER_KEY, PUNCHCARD_LOG: 'silent' };
const dir = mkdtempSync(join(tmpdir(), 'punchcard-import-bench-'));
process.once('exit', () => rmSync(dir, { recursive: true, force: true }));

/** A Smile export: `email,points`, points spread over 0–9,999. Returns the file's sum of points. */
async function writeSmileFile(path: string, rows: number): Promise<number> {
  const out = createWriteStream(path);
  let sum = 0;
  let chunk = 'email,points\n';
  for (let i = 0; i < rows; i++) {
    const points = (i * 7919) % 10_000;
    sum += points;
    chunk += `shopper.${i}@example.com,${points}\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await once(out, 'drain');
      chunk = '';
    }
  }
  out.end(chunk);
  await once(out, 'finish');
  return sum;
}

interface Run { wallS: number; cpuS: number; peakMb: number; summary: Record<string, number>; foreign: string }

/** One `members import`, pinned, under GNU time (`%e %U %S %M`: wall, user, system seconds, peak RSS in KB). */
async function importOnce(db: string, projectId: string, file: string): Promise<Run> {
  const [command, args] = pinned(SERVER_CORE, '/usr/bin/time', ['-f', 'TIME %e %U %S %M', process.execPath, BIN, '--db', db, 'members', 'import', file,
    '--project', projectId, '--from', 'smile', '--json']);
  const child = spawn(command, args, { env });
  // The import itself is a child of GNU time: its CPU time, which time reports, is taken off afterwards.
  const foreign = watchForeignLoad([]);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => { stdout += c.toString(); });
  child.stderr.on('data', (c: Buffer) => { stderr += c.toString(); });
  const [code] = await once(child, 'exit') as [number];
  const seen = foreign();
  const time = /TIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(stderr);
  if (!time) throw new Error(`no timing from GNU time (exit ${code}): ${stderr.slice(-2000)}`);
  const [wallS, cpuS] = [Number(time[1]), Number(time[2]) + Number(time[3])];
  const load = seen ? `other processes used ${Math.max(0, seen.otherCores - cpuS / wallS).toFixed(2)} cores meanwhile` : 'foreign load unknown';
  return { wallS, cpuS, peakMb: Number(time[4]) / 1024, summary: JSON.parse(stdout), foreign: load };
}

function ledger(db: string, projectId: string): { balances: number; transactions: number } {
  const handle = new Database(db, { readonly: true });
  try {
    return {
      balances: handle.prepare('SELECT coalesce(sum(points), 0) FROM members WHERE project_id = ?').pluck().get(projectId) as number,
      transactions: handle.prepare('SELECT count(*) FROM transactions WHERE project_id = ?').pluck().get(projectId) as number,
    };
  } finally {
    handle.close();
  }
}

const file = join(dir, 'smile.csv');
const db = join(dir, 'punchcard.db');
const fileSum = await writeSmileFile(file, ROWS);
const created = spawnSync(process.execPath, [BIN, '--db', db, 'projects', 'create', '--name', 'Import bench', '--json'], { env, encoding: 'utf8' });
const projectId = JSON.parse(created.stdout).project.id as string;
console.log(`members import of a Smile export: ${ROWS.toLocaleString('en-US')} rows, sum of points ${fileSum}, pinned to core ${SERVER_CORE}`);

const first = await importOnce(db, projectId, file);
const afterFirst = ledger(db, projectId);
const exact = afterFirst.balances === fileSum && first.summary.balancesAfter === fileSum;
console.log(`first import:  ${first.wallS.toFixed(1)} s wall, ${first.cpuS.toFixed(1)} s CPU, peak RSS ${first.peakMb.toFixed(0)} MB; `
  + `${first.summary.created} new; sum of balances ${afterFirst.balances} (${exact ? 'equals' : 'DIFFERS FROM'} the file's); ${first.foreign}`);

const second = await importOnce(db, projectId, file);
const afterSecond = ledger(db, projectId);
const unchanged = afterSecond.balances === afterFirst.balances && afterSecond.transactions === afterFirst.transactions && second.summary.unchanged === ROWS;
console.log(`same file again: ${second.wallS.toFixed(1)} s wall, ${second.cpuS.toFixed(1)} s CPU, peak RSS ${second.peakMb.toFixed(0)} MB; `
  + `${second.summary.unchanged} unchanged; ${unchanged ? 'nothing changed' : 'SOMETHING CHANGED'}; ${second.foreign}`);
if (!exact || !unchanged) process.exitCode = 1;
