// What PRAGMA secure_delete costs, in-process, on copies of the cached ledger dataset:
//   taskset -c 0 node --import tsx bench/secure-delete.ts   (AWARDS per round, default 20,000; ERASE, default 2,000)
// Each round copies the dataset (10,000 members with 20 awards each) and opens it as the server
// does, with secure_delete as the round says: ON, OFF, ON, OFF (SECURE_DELETE_MODES to change).
// Awards: AWARDS of 1 point, 50 per transaction as the group commit batches them under load. Erasure: ERASE members, one transaction and one fsync each (synchronous=FULL). Prints the CPU
// per award, and per erasure the wall time (mean, p50, p99) and the CPU, then, after a checkpoint,
// how many of the erased externalIds the file's bytes still hold (of those with four digits) and where.
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { openStore } from '../src/db/store.ts';
import { atomically } from '../src/db/transaction.ts';
import { adjustPoints } from '../src/domain/ledger/ledger.ts';
import { eraseMember } from '../src/domain/members/privacy.ts';
import { ledgerDataset } from './dataset.ts';
import { BENCH_MASTER_KEY, fmt, setting, table } from './settings.ts';

const MEMBERS = 10_000;
const PER_MEMBER = 20;
const ERASE = setting('ERASE', 2_000, { integer: true, min: 1 });
const AWARDS = setting('AWARDS', 20_000, { integer: true, min: 50 });
/** The rounds' settings, in order (SECURE_DELETE_MODES=FAST,ON,FAST,ON compares SQLite's FAST mode). */
const MODES = (process.env.SECURE_DELETE_MODES ?? 'ON,OFF,ON,OFF').split(',').map((mode) => {
  if (!['ON', 'OFF', 'FAST'].includes(mode)) throw new Error(`SECURE_DELETE_MODES: ${mode} is not ON, OFF or FAST`);
  return mode;
});

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

const dir = mkdtempSync(join(tmpdir(), 'punchcard-bench-secure-delete-'));
try {
  const dataset = await ledgerDataset(MEMBERS, PER_MEMBER, 600);
  console.log(`dataset ${dataset.path}: ${dataset.buildSeconds ? `built in ${dataset.buildSeconds} s` : 'cached'}; ${fmt(AWARDS)} awards, then erasing ${fmt(ERASE)} of ${fmt(MEMBERS)} members, per round`);
  const rows: string[][] = [];
  for (const [round_, mode] of MODES.entries()) {
    const path = join(dir, `round-${round_}.db`);
    copyFileSync(dataset.path, path);
    const store = await openStore({ path, masterKey: BENCH_MASTER_KEY });
    const { db } = store;
    db.pragma(`secure_delete = ${mode}`);
    const projectId = db.prepare("SELECT id FROM projects WHERE name = 'Bench'").pluck().get() as string;
    const awarding = process.cpuUsage();
    for (let i = 0; i < AWARDS; i += 50) {
      atomically(db, () => {
        for (let j = i; j < i + 50; j++) adjustPoints(db, projectId, `member-${(j * 7919) % MEMBERS}`, { amount: 1 }, 'bench', new Date());
      });
    }
    const awarded = process.cpuUsage(awarding);
    const times: number[] = [];
    const cpu = process.cpuUsage();
    const erased = Array.from({ length: ERASE }, (_, i) => `member-${i * Math.floor(MEMBERS / ERASE)}`);
    for (const externalId of erased) {
      const started = performance.now();
      eraseMember(db, projectId, externalId, new Date());
      times.push(performance.now() - started);
    }
    const used = process.cpuUsage(cpu);
    db.pragma('wal_checkpoint(TRUNCATE)');
    store.close();
    // Four-digit ids only: "member-100" is also the start of "member-1000", which may still be live.
    const bytes = readFileSync(path);
    const checked = erased.filter((id) => id.length === 'member-1000'.length);
    const found = checked.map((id) => bytes.indexOf(id)).filter((at) => at >= 0);
    const left = found.length;
    // Where they are: the b-tree and kind of page (dbstat) holding each.
    const reader = new Database(path, { readonly: true });
    const pageSize = reader.pragma('page_size', { simple: true }) as number;
    const page = reader.prepare('SELECT name, pagetype FROM dbstat WHERE pageno = ?');
    const places = new Map<string, number>();
    for (const at of found) {
      const where = page.get(Math.floor(at / pageSize) + 1) as { name: string; pagetype: string } | undefined;
      const place = where ? `${where.name} (${where.pagetype} page)` : 'a free page';
      places.set(place, (places.get(place) ?? 0) + 1);
    }
    reader.close();
    if (places.size > 0) console.log(`  left in: ${[...places].map(([place, n]) => `${place} ${n}`).join(', ')}`);
    const sorted = [...times].sort((a, b) => a - b);
    rows.push([`round ${round_ + 1}, secure_delete ${mode}`, String(Math.round((awarded.user + awarded.system) / AWARDS)), String(round(sorted.reduce((a, b) => a + b, 0) / ERASE, 3)), String(round(percentile(sorted, 50), 3)),
      String(round(percentile(sorted, 99), 3)), String(Math.round((used.user + used.system) / ERASE)), `${fmt(left)} of ${fmt(checked.length)}`]);
    console.log(rows.at(-1)!.join('  '));
    rmSync(path, { force: true });
  }
  console.log(`\n${table(['round', 'award CPU µs', 'erasure mean ms', 'p50 ms', 'p99 ms', 'erasure CPU µs', 'erased externalIds left in the file'], rows)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
