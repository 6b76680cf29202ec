import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { randomBase62 } from '../../shared/ids.ts';
import { constantTimeEqual, sha256Hex } from '../../shared/secrets.ts';

/**
 * The server's metrics token: what reads /metrics, which reports the whole server (every
 * project's traffic and the database's size), so no project's key may. One per database, made or
 * replaced by `punchcard metrics token`; only its SHA-256 is stored (in `meta`), like API keys.
 */

const META_KEY = 'metrics_token_sha256';

/** 32 base62 characters: 190 random bits, not guessable, like the API keys. */
const TOKEN_LENGTH = 32;

/** Makes a new token, replacing any before it (which stops reading /metrics at once). Returns it, for showing once. */
export function rotateMetricsToken(db: Db): { token: string; replaced: boolean } {
  const token = `pcm_${randomBase62(TOKEN_LENGTH)}`;
  const replaced = storedHash(db) !== null;
  stmt(db, 'INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)').run(META_KEY, sha256Hex(token));
  return { token, replaced };
}

/** Removes the token: /metrics then answers 404 unless the server has one of its own (--metrics-token). Whether there was one. */
export function revokeMetricsToken(db: Db): boolean {
  return stmt(db, 'DELETE FROM meta WHERE key = ?').run(META_KEY).changes > 0;
}

const storedHash = (db: Db) => stmt<string>(db, 'SELECT value FROM meta WHERE key = ?').pluck().get(META_KEY) ?? null;

/** Whether the database holds a metrics token. */
export const hasMetricsToken = (db: Db) => storedHash(db) !== null;

/** Whether `presented` is the stored token (compared by hash, in constant time). */
export function isMetricsToken(db: Db, presented: string): boolean {
  const stored = storedHash(db);
  return stored !== null && constantTimeEqual(sha256Hex(presented), stored);
}
