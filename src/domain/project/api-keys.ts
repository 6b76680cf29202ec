import type { Db } from '../../db/connection.ts';
import { dataVersionThisTurn } from '../../db/cache-version.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import { newId, randomBase62 } from '../../shared/ids.ts';
import { constantTimeEqual, sha256Hex } from '../../shared/secrets.ts';

export type KeyType = 'secret' | 'publishable';

export interface ApiKeyInfo {
  id: string;
  projectId: string;
  type: KeyType;
  prefix: string;
  createdAt: string;
  expiresAt: string | null;
  revokedAt: string | null;
}

export interface IssuedKey extends ApiKeyInfo {
  /** The full key. Shown once; only its SHA-256 is stored. */
  key: string;
}

interface KeyRow {
  id: string;
  project_id: string;
  type: KeyType;
  key_hash: string;
  key_prefix: string;
  created_at: string;
  expires_at: string | null;
  revoked_at: string | null;
}

const PREFIX = { secret: 'sk_live_', publishable: 'pk_live_' } as const;
const DISPLAY_LENGTH = 12;

/**
 * Key rows by hash, cached per connection: authentication runs on every request and the rows
 * almost never change. This module clears the cache whenever it changes a key itself, and
 * `PRAGMA data_version` changes whenever another connection (the CLI) commits, so a revocation
 * is seen at once: on the next request, or the next turn of the event loop when the CLI's commit
 * lands between requests that arrived together (dataVersionThisTurn). Unknown hashes are never cached.
 */
const keyCaches = new WeakMap<Db, { dataVersion: number; byHash: Map<string, KeyRow> }>();

function keyRowByHash(db: Db, hash: string): KeyRow | undefined {
  const dataVersion = dataVersionThisTurn(db);
  let cache = keyCaches.get(db);
  if (!cache || cache.dataVersion !== dataVersion) {
    cache = { dataVersion, byHash: new Map() };
    keyCaches.set(db, cache);
  }
  let row = cache.byHash.get(hash);
  if (!row) {
    row = stmt<KeyRow>(db, 'SELECT * FROM api_keys WHERE key_hash = ?').get(hash);
    if (row) cache.byHash.set(hash, row);
  }
  return row;
}

const toInfo = (row: KeyRow): ApiKeyInfo => ({
  id: row.id,
  projectId: row.project_id,
  type: row.type,
  prefix: row.key_prefix,
  createdAt: row.created_at,
  expiresAt: row.expires_at,
  revokedAt: row.revoked_at,
});

export function issueKey(db: Db, input: { projectId: string; type: KeyType; expiresAt?: Date }, now: Date): IssuedKey {
  keyCaches.delete(db);
  return atomically(db, () => {
    const key = `${PREFIX[input.type]}${randomBase62(32)}`;
    const row: KeyRow = {
      id: newId('key'),
      project_id: input.projectId,
      type: input.type,
      key_hash: sha256Hex(key),
      key_prefix: key.slice(0, DISPLAY_LENGTH),
      created_at: now.toISOString(),
      expires_at: input.expiresAt?.toISOString() ?? null,
      revoked_at: null,
    };
    const project = stmt(db, 'SELECT 1 FROM projects WHERE id = ?').get(input.projectId);
    if (!project) throw notFound(`No project with id "${input.projectId}"`);
    stmt(db,
      `INSERT INTO api_keys (id, project_id, type, key_hash, key_prefix, created_at, expires_at, revoked_at, publishable_key)
       VALUES (@id, @project_id, @type, @key_hash, @key_prefix, @created_at, @expires_at, @revoked_at, @publishable_key)`,
    ).run({ ...row, publishable_key: input.type === 'publishable' ? key : null });
    return { ...toInfo(row), key };
  });
}

export function listKeys(db: Db, projectId: string): ApiKeyInfo[] {
  return (stmt(db, 'SELECT * FROM api_keys WHERE project_id = ? ORDER BY created_at, rowid').all(projectId) as KeyRow[]).map(toInfo);
}

/** Revokes a key; with `projectId` (the admin), a key of another project is not found either. */
export function revokeKey(db: Db, keyId: string, now: Date, projectId?: string): ApiKeyInfo {
  keyCaches.delete(db);
  return atomically(db, () => {
    const row = stmt(db, 'SELECT * FROM api_keys WHERE id = ?').get(keyId) as KeyRow | undefined;
    if (!row || (projectId !== undefined && row.project_id !== projectId)) throw notFound(`No API key with id "${keyId}"${projectId ? ' in this project' : ''}`);
    if (row.revoked_at === null) {
      row.revoked_at = now.toISOString();
      stmt(db, 'UPDATE api_keys SET revoked_at = ? WHERE id = ?').run(row.revoked_at, keyId);
    }
    return toInfo(row);
  });
}

export interface AuthenticatedKey {
  keyId: string;
  projectId: string;
  type: KeyType;
  /** Recorded as the `actor` of the changes this key makes. */
  prefix: string;
}

const unauthorized = (error: string, message: string) => new AppError(401, error, message);

/**
 * The project's newest live publishable key, in full: publishable keys are public, so they are
 * stored readable (secret keys never are). Undefined when the project has none readable.
 */
export function livePublishableKey(db: Db, projectId: string, now: Date): string | undefined {
  return stmt<string>(db, `SELECT publishable_key FROM api_keys WHERE project_id = ? AND type = 'publishable'
    AND publishable_key IS NOT NULL AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?) ORDER BY created_at DESC, rowid DESC LIMIT 1`)
    .pluck().get(projectId, now.toISOString());
}

/** Why a presented key was refused, so each surface can word its own 401. */
export type KeyProblem = { problem: 'unknown' } | { problem: 'expired'; expiresAt: string };

/**
 * Looks a presented key up by its SHA-256 (so the key itself is never compared or stored), then
 * compares the hash in constant time as a second guard. Revoked keys count as unknown.
 */
export function checkKey(db: Db, presented: string, now: Date): AuthenticatedKey | KeyProblem {
  const hash = sha256Hex(presented);
  const row = keyRowByHash(db, hash);
  if (!row || !constantTimeEqual(row.key_hash, hash) || row.revoked_at !== null) return { problem: 'unknown' };
  if (row.expires_at !== null && row.expires_at <= now.toISOString()) return { problem: 'expired', expiresAt: row.expires_at };
  return { keyId: row.id, projectId: row.project_id, type: row.type, prefix: row.key_prefix };
}

/** Resolves a key presented to the server API. */
export function authenticateKey(db: Db, presented: string | undefined, now: Date): AuthenticatedKey {
  if (!presented) {
    throw unauthorized('Missing API key', 'Send your secret key as "Authorization: Bearer sk_live_…" or in the "X-API-Key" header.');
  }
  const key = checkKey(db, presented, now);
  if (!('problem' in key)) return key;
  if (key.problem === 'expired') {
    throw unauthorized('API key expired', `The API key expired at ${key.expiresAt}. Create a new one with "punchcard keys create".`);
  }
  throw unauthorized('Invalid API key', 'The API key is not recognised or has been revoked.');
}
