import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ensureDirectory, openDatabase, type Db } from '../db/connection.ts';
import { bundledMigrations, migrate } from '../db/migrations.ts';
import { checkLedger } from '../domain/ledger/audit.ts';
import { serverRunning } from '../db/server-lock.ts';
import { checkMasterKey } from '../db/store.ts';
import { configArgs, findLitestream, litestreamMetaDir, litestreamSaid, redactReplicaUrl, writeLitestreamConfig } from './litestream.ts';
import { readStatusRecord } from './status.ts';

export interface RestoreOptions {
  /** The replica URL, as given to `serve --replicate`. */
  from: string;
  db: string;
  /** Restore the database as it was at this moment: the latest state replicated at or before it. */
  timestamp?: Date | undefined;
  /** Replace an existing database. */
  force?: boolean | undefined;
  /** PUNCHCARD_MASTER_KEY; without it, the key file beside the database. */
  masterKey?: string | undefined;
}

export type KeyCheck = 'ok' | 'missing' | 'wrong';

export interface RestoreReport {
  db: string;
  replica: string;
  timestamp: string | null;
  /** Migrations this build applied to the restored copy. */
  migrated: string[];
  members: number;
  masterKey: KeyCheck;
  /** What is missing for the server to start on the restored database; null when nothing is. */
  keyProblem: string | null;
}

interface Generation {
  name: string;
  start: Date;
  end: Date;
}

/** `litestream generations`: each generation of the replica with the times of its first and last data. */
function generations(binary: string, url: string, scratch: string): Generation[] {
  // It insists on a local file at the configured path, though it reads only the replica.
  const probe = join(scratch, 'probe.db');
  writeFileSync(probe, '');
  const config = join(scratch, 'generations.yml');
  writeLitestreamConfig(config, { db: probe, url, intervalMs: 1_000 });
  const run = spawnSync(binary, ['generations', ...configArgs(config), probe], { encoding: 'utf8' });
  if (run.status !== 0) return [];
  // name  generation  lag  start  end (after a header line)
  return run.stdout.trim().split('\n').slice(1).map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length >= 5)
    .map(([, name, , start, end]) => ({ name: name!, start: new Date(start!), end: new Date(end!) }))
    .filter((g) => !Number.isNaN(g.start.getTime()) && !Number.isNaN(g.end.getTime()));
}

/**
 * The generation holding the latest state before `moment`, when Litestream refused the moment
 * itself: it restores a timestamp only inside a generation's time span, and answers "no matching
 * backups" for a moment after a generation's last write. Its times are printed to the second, so a
 * generation counts only once a whole second of it lies before the moment.
 */
function generationBefore(binary: string, url: string, scratch: string, moment: Date): string | undefined {
  return generations(binary, url, scratch)
    .filter((g) => g.start.getTime() + 1_000 <= moment.getTime())
    .sort((a, b) => b.end.getTime() - a.end.getTime())[0]?.name;
}

/** Runs `litestream restore` into `output`; its refusals become messages that name what to check. */
function litestreamRestore(options: RestoreOptions, target: string, scratch: string, output: string): void {
  const binary = findLitestream();
  const config = join(scratch, 'litestream.yml');
  writeLitestreamConfig(config, { db: target, url: options.from, intervalMs: 1_000 });
  const restore = (asOf: string[]) => {
    const run = spawnSync(binary, ['restore', ...configArgs(config), '-o', output, ...asOf, target], { encoding: 'utf8', maxBuffer: 64 << 20 });
    return { run, said: `${run.stderr ?? ''}\n${run.stdout ?? ''}`, done: run.status === 0 && existsSync(output) };
  };
  let { run, said, done } = restore(options.timestamp ? ['-timestamp', options.timestamp.toISOString()] : []);
  if (!done && options.timestamp && said.includes('no matching backups found')) {
    // A moment after the last write: the state at it is the latest of the generation before it.
    const generation = generationBefore(binary, options.from, scratch, options.timestamp);
    if (generation) ({ run, said, done } = restore(['-generation', generation]));
  }
  if (done) return;
  const replica = redactReplicaUrl(options.from);
  if (said.includes('no matching backups found')) {
    throw new Error(`No replica to restore at ${replica}${options.timestamp ? ` from before ${options.timestamp.toISOString()}` : ''}: Litestream found no backup there. Check the URL (and, for S3, the AWS variables).`);
  }
  throw new Error(`litestream restore from ${replica} failed: ${litestreamSaid(said, options.from) || String(run.error ?? `exit ${run.status}`)}`);
}

function checkKey(db: Db, target: string, masterKey: string | undefined): { masterKey: KeyCheck; keyProblem: string | null } {
  const { state, problem } = checkMasterKey(db, target, masterKey);
  return { masterKey: state === 'unkeyed' ? 'ok' : state, keyProblem: problem };
}

/**
 * Restores `db` from a Litestream replica into a scratch file beside it, checks the copy (SQLite
 * integrity, migrations, the ledger invariant, the master key) and only then puts it in place.
 * A failed check leaves the existing database untouched.
 */
export async function restoreDatabase(options: RestoreOptions): Promise<RestoreReport> {
  const target = resolve(options.db);
  if (existsSync(target) && !options.force) {
    throw new Error(`${target} already exists. Stop the server, then run restore again with --force to replace it.`);
  }
  const server = readStatusRecord(target);
  if (server && server.state !== 'stopped') throw new Error(`A server (pid ${server.pid}) is running on ${target} and replicating it; stop it first.`);
  ensureDirectory(dirname(target));
  if (serverRunning(target)) throw new Error(`A server is running on ${target}; stop it first.`);
  const scratch = mkdtempSync(join(dirname(target), '.punchcard-restore-'));
  try {
    const restored = join(scratch, 'restored.db');
    litestreamRestore(options, target, scratch, restored);
    const db = openDatabase(restored);
    let report: Omit<RestoreReport, 'db' | 'replica' | 'timestamp'>;
    try {
      const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check);
      if (integrity.join() !== 'ok') throw new Error(`The restored copy fails SQLite's integrity check (${integrity.slice(0, 3).join('; ')}); nothing was replaced.`);
      const migrated = migrate(db, await bundledMigrations()).map((m) => m.name);
      const violations = checkLedger(db);
      if (violations.length > 0) throw new Error(`The restored copy breaks the ledger invariant (${violations.length} problem(s), first: ${violations[0]!.problem}); nothing was replaced.`);
      const members = (db.prepare('SELECT count(*) AS n FROM members').get() as { n: number }).n;
      report = { migrated, members, ...checkKey(db, target, options.masterKey) };
    } finally {
      db.close(); // the last connection: SQLite folds the WAL into the file
    }
    for (const file of [target, `${target}-wal`, `${target}-shm`, litestreamMetaDir(target)]) rmSync(file, { recursive: true, force: true });
    renameSync(restored, target);
    chmodSync(target, 0o600);
    return { db: target, replica: redactReplicaUrl(options.from), timestamp: options.timestamp?.toISOString() ?? null, ...report };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
