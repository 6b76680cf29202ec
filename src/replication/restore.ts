import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdtempSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { ensureDirectory, openDatabase, type Db } from '../db/connection.ts';
import { bundledMigrations, migrate } from '../db/migrations.ts';
import { describeDifferences, schemaDifferences } from '../db/schema-check.ts';
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
  /** Where the database it replaced was kept; null when there was none. */
  replaced: string | null;
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

/** Refuses before anything is read or written: an existing database without --force, or a running server. */
function preflight(target: string, force: boolean | undefined): void {
  if (existsSync(target) && !force) {
    throw new Error(`${target} already exists. Stop the server, then run restore again with --force to replace it.`);
  }
  const server = readStatusRecord(target);
  if (server && server.state !== 'stopped') throw new Error(`A server (pid ${server.pid}) is running on ${target} and replicating it; stop it first.`);
  ensureDirectory(dirname(target));
  if (serverRunning(target)) throw new Error(`A server is running on ${target}; stop it first.`);
}

type CheckedCopy = Omit<RestoreReport, 'db' | 'replica' | 'timestamp' | 'replaced'>;

/**
 * The checks a copy passes before it replaces anything: a Punchcard database, SQLite integrity,
 * exactly the schema the migrations it records make (no trigger, view, table or index added,
 * changed or dropped), then its pending migrations, the ledger invariant, the master key.
 */
async function checkCopy(copy: string, target: string, masterKey: string | undefined): Promise<CheckedCopy> {
  let db: Db;
  try {
    db = openDatabase(copy);
    db.prepare('SELECT count(*) FROM sqlite_master').get(); // opening is lazy: this reads the header
  } catch (error) {
    throw new Error(`The copy is not a SQLite database (${(error as Error).message}); nothing was replaced.`);
  }
  try {
    const integrity = (db.pragma('integrity_check') as { integrity_check: string }[]).map((row) => row.integrity_check);
    if (integrity.join() !== 'ok') throw new Error(`The restored copy fails SQLite's integrity check (${integrity.slice(0, 3).join('; ')}); nothing was replaced.`);
    if (db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'schema_migrations'").get() === undefined) {
      throw new Error('The copy is not a Punchcard database (it has no schema_migrations table); nothing was replaced.');
    }
    const migrations = await bundledMigrations();
    // Before migrating: a trigger someone added would run in the migrations, and then in serve.
    const differences = schemaDifferences(db, migrations);
    if (differences.length > 0) {
      throw new Error(`The copy's schema is not the one Punchcard's migrations make: ${describeDifferences(differences)}; nothing was replaced. `
        + 'Restore a backup made before that change.');
    }
    let migrated: string[];
    try {
      migrated = migrate(db, migrations).map((m) => m.name);
    } catch (error) {
      throw new Error(`${(error as Error).message} Nothing was replaced.`);
    }
    const violations = checkLedger(db);
    if (violations.length > 0) throw new Error(`The restored copy breaks the ledger invariant (${violations.length} problem(s), first: ${violations[0]!.problem}); nothing was replaced.`);
    const members = (db.prepare('SELECT count(*) AS n FROM members').get() as { n: number }).n;
    return { migrated, members, ...checkKey(db, target, masterKey) };
  } finally {
    db.close(); // the last connection: SQLite folds the WAL into the file
  }
}

/**
 * Puts the checked copy at `target`. The database it replaces is kept aside as
 * `<db>.replaced-<time>` (with its WAL, so it stays whole), never deleted: a restore from the wrong
 * file is then undone by moving it back. Returns the kept file, or null when there was none.
 */
function putInPlace(copy: string, target: string, now: Date): string | null {
  let aside: string | null = null;
  if (existsSync(target)) {
    aside = `${target}.replaced-${now.toISOString().replace(/[:.]/g, '-')}`;
    renameSync(target, aside);
    for (const suffix of ['-wal', '-shm']) if (existsSync(target + suffix)) renameSync(target + suffix, aside + suffix);
  }
  for (const file of [`${target}-wal`, `${target}-shm`, litestreamMetaDir(target)]) rmSync(file, { recursive: true, force: true });
  renameSync(copy, target);
  chmodSync(target, 0o600);
  return aside;
}

/**
 * Restores `db` from a Litestream replica into a scratch file beside it, checks the copy (SQLite
 * integrity, migrations, the ledger invariant, the master key) and only then puts it in place.
 * A failed check leaves the existing database untouched.
 */
export async function restoreDatabase(options: RestoreOptions): Promise<RestoreReport> {
  const target = resolve(options.db);
  preflight(target, options.force);
  const scratch = mkdtempSync(join(dirname(target), '.punchcard-restore-'));
  try {
    const restored = join(scratch, 'restored.db');
    litestreamRestore(options, target, scratch, restored);
    const report = await checkCopy(restored, target, options.masterKey);
    const replaced = putInPlace(restored, target, new Date());
    return { db: target, replica: redactReplicaUrl(options.from), timestamp: options.timestamp?.toISOString() ?? null, replaced, ...report };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export interface FileRestoreOptions {
  /** A file written by `punchcard backup`; it is copied, never moved or changed. */
  file: string;
  db: string;
  force?: boolean | undefined;
  masterKey?: string | undefined;
}

export type FileRestoreReport = Omit<RestoreReport, 'replica' | 'timestamp'> & { file: string };

/**
 * Restores `db` from a backup file with the same checks as a replica restore: the file is copied
 * into a scratch folder beside the database (same file system, so the final rename is atomic),
 * checked and migrated there, and only then put in place.
 */
export async function restoreFromFile(options: FileRestoreOptions): Promise<FileRestoreReport> {
  const target = resolve(options.db);
  const source = resolve(options.file);
  if (!existsSync(source) || !statSync(source).isFile()) throw new Error(`No backup file at ${source}.`);
  if (source === target) throw new Error(`${source} is the database itself; name a backup file made by punchcard backup.`);
  preflight(target, options.force);
  const scratch = mkdtempSync(join(dirname(target), '.punchcard-restore-'));
  try {
    const restored = join(scratch, 'restored.db');
    copyFileSync(source, restored);
    chmodSync(restored, 0o600); // it holds members' personal data
    const report = await checkCopy(restored, target, options.masterKey);
    const replaced = putInPlace(restored, target, new Date());
    return { db: target, file: source, replaced, ...report };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
