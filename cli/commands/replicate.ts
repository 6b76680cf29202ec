import { Command } from 'commander';
import { describeReplication, OFF, readStatusRecord, type ReplicationStatus, type StatusRecord } from '../../src/replication/status.ts';
import { dbPath, requireDatabase } from '../context.ts';
import { printJson } from '../output.ts';

const keyWarning = (db: string) =>
  `WARNING: replication is on, but the master key exists only as ${db}.key beside the database. The replica does not hold it, `
  + 'and a database restored without it cannot start: keep a copy off this machine, or set PUNCHCARD_MASTER_KEY.';

/** What `serve --replicate` adds to its first lines. */
export const replicationBanner = (record: StatusRecord, db: string) =>
  `\nReplicating to ${record.replica} with Litestream ${record.litestreamVersion}; \`punchcard replicate status\` shows the lag.`
  + (record.masterKey === 'file' ? `\n${keyWarning(db)}` : '');

export interface ReplicationCheck {
  status: ReplicationStatus;
  /** Reasons for doctor to fail. */
  problems: string[];
  warnings: string[];
}

/** Replication as `doctor` judges it, from the status file of the server replicating `db`. */
export function checkReplication(db: string, maxLagMs: number): ReplicationCheck {
  const record = readStatusRecord(db);
  const status = record ? describeReplication(record) : OFF;
  const check: ReplicationCheck = { status, problems: [], warnings: [] };
  if (!record || !status.enabled) return check;
  const lagMs = record.lastSyncAt ? Date.now() - Date.parse(record.lastSyncAt) : null; // unrounded, for the comparison
  if (lagMs === null) check.warnings.push(`Replication: Litestream (${status.state}) has not confirmed a sync yet.`);
  else if (lagMs > maxLagMs) {
    check.problems.push(`Replication: the replica is ${status.lagSeconds} s behind (over ${maxLagMs / 1000} s); Litestream is ${status.state}${record.lastError ? `, last error: ${record.lastError}` : ''}.`);
  }
  if (record.masterKey === 'file') check.warnings.push(keyWarning(db));
  return check;
}

function printStatus(db: string, record: StatusRecord | null): void {
  if (!record) {
    console.log(`Replication: off (no server has replicated ${db})`);
    return;
  }
  const status = describeReplication(record);
  const ago = status.lastSyncAt ? ` (${Math.round((Date.now() - Date.parse(status.lastSyncAt)) / 100) / 10} s ago)` : '';
  console.log(`Replication: ${status.enabled ? `on (${status.state})` : 'off (the server that replicated it has stopped)'}`);
  console.log(`Replica:     ${record.replica}`);
  console.log(`Last sync:   ${status.lastSyncAt ?? 'none yet'}${ago}: the replica held every write committed before it`);
  if (status.enabled) console.log(`Lag:         ${status.lagSeconds === null ? 'unknown' : `${status.lagSeconds} s`}`);
  console.log(`Litestream:  ${record.litestreamVersion}${record.litestreamPid ? `, pid ${record.litestreamPid}` : ''}, restarted ${record.restarts} time(s)`);
  if (record.lastError) console.log(`Last error:  ${record.lastError}`);
}

export const replicateCommand = new Command('replicate').description('off-machine replication with Litestream (see `serve --replicate`; `restore --from` reads a replica)');

replicateCommand.command('status')
  .description('on/off, the replica, the last sync and the lag, as the server replicating this database last recorded them')
  .option('--json', 'print JSON')
  .action((options: { json?: boolean }, command: Command) => {
    const db = dbPath(command);
    requireDatabase(db);
    const record = readStatusRecord(db);
    if (!options.json) return printStatus(db, record);
    printJson(record ? { ...describeReplication(record), litestream: { version: record.litestreamVersion, pid: record.litestreamPid, restarts: record.restarts, lastError: record.lastError } } : OFF);
  });
