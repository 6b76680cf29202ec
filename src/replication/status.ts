import { existsSync, readFileSync } from 'node:fs';
import { rename, writeFile } from 'node:fs/promises';

export type ReplicationState = 'starting' | 'replicating' | 'restarting' | 'stopped';

/** What a replicating server writes beside the database, so `replicate status` and `doctor` can read it. */
export interface StatusRecord {
  /** The server process. */
  pid: number;
  litestreamPid: number | null;
  litestreamVersion: string;
  /** Redacted: no user, password or query. */
  replica: string;
  state: ReplicationState;
  /** The last moment at which the replica held every committed write. */
  lastSyncAt: string | null;
  restarts: number;
  lastError: string | null;
  /** Where the server's master key came from; a key only in a file beside the database is lost with the disk. */
  masterKey: 'environment' | 'file';
}

/** Replication as /healthz and `replicate status` report it. */
export interface ReplicationStatus {
  enabled: boolean;
  replica: string | null;
  state: ReplicationState | 'off';
  lastSyncAt: string | null;
  /** Seconds since lastSyncAt while replicating: at most this much committed history is missing from the replica. */
  lagSeconds: number | null;
}

export const statusFile = (db: string) => `${db}.replication.json`;

export const OFF: ReplicationStatus = { enabled: false, replica: null, state: 'off', lastSyncAt: null, lagSeconds: null };

export function describeReplication(record: StatusRecord, now = Date.now()): ReplicationStatus {
  const live = record.state !== 'stopped';
  const lag = live && record.lastSyncAt ? Math.max(0, now - Date.parse(record.lastSyncAt)) / 1000 : null;
  return {
    enabled: live,
    replica: record.replica,
    state: record.state,
    lastSyncAt: record.lastSyncAt,
    lagSeconds: lag === null ? null : Math.round(lag * 10) / 10,
  };
}

/** Whether a process with this id exists (EPERM: it does, under another user). */
export const processAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * The status file of the database, or null when no server ever replicated it. A server killed
 * without shutting down leaves its last state behind; that state is reported as stopped.
 */
export function readStatusRecord(db: string): StatusRecord | null {
  const file = statusFile(db);
  if (!existsSync(file)) return null;
  const record = JSON.parse(readFileSync(file, 'utf8')) as StatusRecord;
  return record.state !== 'stopped' && !processAlive(record.pid) ? { ...record, state: 'stopped' } : record;
}

/** Replaces the file in one rename, so a reader never sees half of it. */
export async function writeStatusRecord(db: string, record: StatusRecord): Promise<void> {
  const file = statusFile(db);
  await writeFile(`${file}.tmp`, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o600 });
  await rename(`${file}.tmp`, file);
}
