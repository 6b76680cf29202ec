// `punchcard backup` under write load, measured:
//   npm run bench:backup          (BACKUP_RATE awards/s, default 1000; BACKUP_PER_MEMBER, default 4)
// Copies the cached ledger dataset (100,000 members with 4 awards each, ~90 MB), starts `punchcard serve` on it,
// sends awards at a steady rate, and once the load runs takes `punchcard backup` (VACUUM INTO)
// and then, for comparison, SQLite's online backup API (what `backup` used before) with a 60 s
// limit. Prints each one's time and the award rate the server kept meanwhile, and checks that the
// copy holds every award acknowledged before the backup started.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { BIN, punchcard, spawnServer } from '../test/helpers/cli.ts';
import { client } from '../test/helpers/http.ts';
import { ledgerDataset } from './dataset.ts';
import { BENCH_MASTER_KEY } from './settings.ts';

const RATE = Number(process.env.BACKUP_RATE ?? 1000);
const MEMBERS = 100_000;
const PER_MEMBER = Number(process.env.BACKUP_PER_MEMBER ?? 4);
const env = { PUNCHCARD_MASTER_KEY: BENCH_MASTER_KEY };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const dir = mkdtempSync(join(tmpdir(), 'punchcard-backup-bench-'));

function cli(args: string[]): Promise<{ status: number | null; output: string }> {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env } });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
  return new Promise((resolve) => child.once('exit', (status) => resolve({ status, output })));
}

/** The old way: better-sqlite3's online backup, which starts over whenever another connection commits. */
async function onlineBackup(db: string, file: string, limitMs: number): Promise<string> {
  const source = new Database(db, { readonly: true });
  const started = performance.now();
  let restarts = 0;
  let last = Infinity;
  try {
    await source.backup(file, {
      progress: ({ remainingPages }) => {
        if (remainingPages > last) restarts++;
        last = remainingPages;
        if (performance.now() - started > limitMs) throw new Error('limit');
        return 100;
      },
    });
    return `finished in ${Math.round(performance.now() - started)} ms (${restarts} restarts)`;
  } catch {
    return `NOT finished after ${limitMs / 1000} s (${restarts} restarts)`;
  } finally {
    source.close();
  }
}

try {
  const dataset = await ledgerDataset(MEMBERS, PER_MEMBER, 600);
  const db = join(dir, 'live.db');
  copyFileSync(dataset.path, db);
  const { key } = JSON.parse(punchcard(['--db', db, 'keys', 'create', '--project', dataset.projectId, '--type', 'secret', '--json'], env).stdout) as { key: string };
  const server = await spawnServer(db, [], env);
  const api = client(server.url, key);

  const acked = new Set<string>();
  let sent = 0;
  let failed = 0;
  let running = true;
  const load = (async () => {
    const started = performance.now();
    while (running) {
      // Open loop: whatever the server answers, requests go out at RATE per second.
      const due = Math.floor(((performance.now() - started) / 1000) * RATE);
      for (; sent < due; sent++) {
        api.post(`/api/v1/members/member-${(sent * 7919) % MEMBERS}/points`, { amount: 1 })
          .then((res) => (res.status === 200 ? acked.add(res.body.transaction.id) : failed++), () => failed++);
      }
      await sleep(5);
    }
  })();
  const rateDuring = async <T>(work: () => Promise<T>) => {
    const from = acked.size;
    const started = performance.now();
    const result = await work();
    const seconds = (performance.now() - started) / 1000;
    return { result, seconds, rate: Math.round((acked.size - from) / seconds) };
  };

  await sleep(3000);
  const size = statSync(db).size;
  const before = new Set(acked);
  const copy = join(dir, 'copy.db');
  const vacuumInto = await rateDuring(() => cli(['--db', db, 'backup', copy]));
  const online = await rateDuring(() => onlineBackup(db, join(dir, 'online.db'), 60_000));
  running = false;
  await load;
  await sleep(500);
  server.child.kill('SIGTERM');

  const check = new Database(copy, { readonly: true });
  const stored = new Set(check.prepare('SELECT public_id FROM transactions WHERE id > ?').pluck().all(MEMBERS * PER_MEMBER) as string[]);
  check.close();
  const missing = [...before].filter((id) => !stored.has(id)).length;
  console.log(`database ${(size / 1e6).toFixed(1)} MB, load ${RATE} awards/s requested (${failed} failed)`);
  console.log(`punchcard backup (VACUUM INTO): ${vacuumInto.result.status === 0 ? 'finished' : `FAILED: ${vacuumInto.result.output}`} in ${vacuumInto.seconds.toFixed(2)} s, ` +
    `awards meanwhile ${vacuumInto.rate}/s, mode ${(statSync(copy).mode & 0o777).toString(8)}; ` +
    `${before.size} awards acknowledged before it started, ${missing} of them missing from the copy`);
  console.log(`online backup API (before): ${online.result}, awards meanwhile ${online.rate}/s`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
