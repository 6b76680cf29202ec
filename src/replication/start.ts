import { spawnSync } from 'node:child_process';
import type { Logger } from '../shared/log.ts';
import { configArgs, findLitestream, litestreamSaid, litestreamVersion, redactReplicaUrl, writeLitestreamConfig } from './litestream.ts';
import { superviseLitestream, type Replication } from './supervisor.ts';
import type { StatusRecord } from './status.ts';

export interface ReplicateOptions {
  /** Any replica URL Litestream accepts: file:///path, s3://bucket/path, … */
  url: string;
  /** Litestream's monitor and sync interval; its default, 1 s, when not given. */
  intervalMs?: number | undefined;
}

export interface Litestream {
  binary: string;
  version: string;
}

/** Finds a usable Litestream or throws a message saying how to install one: never a server that silently does not replicate. */
export function locateLitestream(): Litestream {
  const binary = findLitestream();
  return { binary, version: litestreamVersion(binary) };
}

/** Litestream's config for `db`, beside it (mode 0600), checked by Litestream itself before anything runs. */
export function litestreamConfig(litestream: Litestream, db: string, replicate: ReplicateOptions): string {
  const config = `${db}.litestream.yml`;
  writeLitestreamConfig(config, { db, url: replicate.url, intervalMs: replicate.intervalMs ?? 1_000 });
  const check = spawnSync(litestream.binary, ['databases', ...configArgs(config)], { encoding: 'utf8', timeout: 10_000 });
  if (check.status !== 0) {
    const said = litestreamSaid(`${check.stderr ?? ''}\n${check.stdout ?? ''}`, replicate.url) || String(check.error ?? `exit ${check.status}`);
    throw new Error(`Litestream does not accept the replica ${redactReplicaUrl(replicate.url)}: ${said}`);
  }
  return config;
}

export function startReplication(
  litestream: Litestream, db: string, replicate: ReplicateOptions, masterKey: StatusRecord['masterKey'], log: Logger,
): Replication {
  const config = litestreamConfig(litestream, db, replicate);
  return superviseLitestream({ db, url: replicate.url, ...litestream, config, masterKey, log });
}
