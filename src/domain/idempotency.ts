import type { Db } from '../db/connection.ts';
import { stmt } from '../db/statements.ts';
import { addMs, DAY_MS } from './clock.ts';
import { conflict } from './errors.ts';
import { sha256Hex } from './secrets.ts';

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** A key is honoured for 24 hours. */
export const IDEMPOTENCY_WINDOW_MS = DAY_MS;

/** JSON with object keys sorted, so the same body always hashes the same. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export const requestFingerprint = (method: string, path: string, body: unknown) =>
  sha256Hex(`${method} ${path}\n${canonical(body)}`);

/**
 * Runs `perform` at most once per (project, key) within 24 hours. Must run inside the same
 * transaction as the change it guards, so the key is recorded if and only if the change is.
 * A replay returns the stored response; the same key with another request answers 409.
 * Failed requests store nothing (they changed nothing), so they can be retried with the same key.
 */
export function once(
  db: Db,
  scope: { projectId: string; key: string; fingerprint: string },
  now: Date,
  perform: () => StoredResponse,
): StoredResponse & { replayed: boolean } {
  const since = addMs(now, -IDEMPOTENCY_WINDOW_MS).toISOString();
  const previous = stmt<{ fingerprint: string; status: number; body: string }>(db,
    'SELECT fingerprint, status, body FROM idempotency_keys WHERE project_id = ? AND key = ? AND created_at > ?')
    .get(scope.projectId, scope.key, since);
  if (previous) {
    if (previous.fingerprint !== scope.fingerprint) {
      throw conflict(`Idempotency-Key "${scope.key}" was already used with a different request. Use a new key for a new request.`);
    }
    return { status: previous.status, body: JSON.parse(previous.body), replayed: true };
  }
  const response = perform();
  stmt(db, `INSERT OR REPLACE INTO idempotency_keys (project_id, key, fingerprint, status, body, created_at)
    VALUES (?, ?, ?, ?, ?, ?)`).run(scope.projectId, scope.key, scope.fingerprint, response.status, JSON.stringify(response.body), now.toISOString());
  return { ...response, replayed: false };
}

/** Forgets keys older than the window. Returns how many were removed. */
export function purgeIdempotencyKeys(db: Db, now: Date): number {
  return stmt(db, 'DELETE FROM idempotency_keys WHERE created_at <= ?').run(addMs(now, -IDEMPOTENCY_WINDOW_MS).toISOString()).changes;
}
