import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { DAY_MS } from '../../shared/clock.ts';
import { conflict } from '../../shared/errors.ts';
import { transactionByRowId, type Transaction } from './ledger.ts';
import { levelFor } from '../levels/member-level.ts';
import { findMember, memberById, requireMember, toMember, type Member } from '../members/members.ts';
import { projectContext } from '../project/project-context.ts';
import { sha256Hex } from '../../shared/secrets.ts';

export interface StoredResponse {
  status: number;
  body: unknown;
  /**
   * 'award': the body is an award's `{transaction, member}`; the key then stores a reference to the
   * ledger row and the member's counters instead of a copy (migrations/0013). 'secret': the body
   * carries a secret shown once, so nothing of it is stored and a repeat is refused (409).
   */
  storeAs?: 'award' | 'secret';
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

/** 128 bits of the SHA-256 are plenty to tell two requests under one key apart. */
const storedFingerprint = (fingerprint: string) => Buffer.from(fingerprint, 'hex').subarray(0, 16);

interface KeyRow {
  fingerprint: Buffer;
  status: number;
  body: string | null;
  transaction_id: number | null;
  counters: string | null;
}

type Award = { transaction: Transaction; member: Member };

/**
 * The award's answer rebuilt from its ledger row: the transaction as recorded, the member's balance
 * after it and the counters stored with the key; the profile as it is now (so an erased member's
 * replay shows nothing erased).
 */
function replayAward(db: Db, transactionId: number, counters: string): Award {
  const { transaction, memberId } = transactionByRowId(db, transactionId)!;
  const row = memberById(db, memberId);
  const { levels } = projectContext(db, row.project_id);
  const [totalPointsEarned, currentStreak, longestStreak] = JSON.parse(counters) as [number, number, number];
  return {
    transaction,
    member: { ...toMember(row, levels), points: transaction.balance, totalPointsEarned, currentStreak, longestStreak, ...levelFor(levels, totalPointsEarned, row.level_floor) },
  };
}

/** The award's ledger row: the newest rows of its member, walked from the end of the member's index. */
function awardRowId(db: Db, projectId: string, award: Award): number {
  const member = findMember(db, projectId, award.member.externalId)!;
  return stmt<number>(db, 'SELECT id FROM transactions WHERE member_id = ? AND public_id = ? ORDER BY id DESC LIMIT 1').pluck()
    .get(member.id, award.transaction.id)!;
}

/**
 * A shopper's keys are their own (`externalId` given: the widget), so two members never meet on one
 * key. Stored behind the member's public id, not the externalId, which may be personal; other
 * surfaces' keys (the admin's: each operator's own) behind their namespace; a newline keeps them
 * apart from the server API's own keys, which hold no control characters (and are stored as they
 * are, as before namespaces).
 */
const storedKey = (db: Db, scope: KeyScope) => {
  if (scope.externalId !== undefined) return `${requireMember(db, scope.projectId, scope.externalId).public_id}\n${scope.key}`;
  return scope.namespace === undefined ? scope.key : `${scope.namespace}\n${scope.key}`;
};

/** Whose key it is: a project's, a shopper's of that project (`externalId`), or a surface's of that project (`namespace`). */
export interface KeyScope {
  projectId: string;
  key: string;
  externalId?: string | undefined;
  namespace?: string | undefined;
}

/** Stored in place of an answer that carried a secret: a repeat learns it was made, never the secret. */
const SECRET_ANSWER = 0;


/**
 * Runs `perform` at most once per (project, key) within 24 hours, or per (project, member, key)
 * with `externalId`. Must run inside the same transaction as the change it guards, so the key is
 * recorded if and only if the change is.
 * A replay returns the stored response; the same key with another request answers 409.
 * Failed requests store nothing (they changed nothing), so they can be retried with the same key.
 */
export function once(
  db: Db,
  scope: KeyScope & { fingerprint: string },
  now: Date,
  perform: () => StoredResponse,
): StoredResponse & { replayed: boolean } {
  const fingerprint = storedFingerprint(scope.fingerprint);
  const key = storedKey(db, scope);
  const previous = stmt<KeyRow>(db,
    'SELECT fingerprint, status, body, transaction_id, counters FROM idempotency_keys WHERE project_id = ? AND key = ? AND created_at > ?')
    .get(scope.projectId, key, now.getTime() - IDEMPOTENCY_WINDOW_MS);
  if (previous) {
    if (!fingerprint.equals(previous.fingerprint)) {
      throw conflict(`Idempotency-Key "${scope.key}" was already used with a different request. Use a new key for a new request.`);
    }
    if (previous.status === SECRET_ANSWER) {
      throw conflict(`This request was already made with Idempotency-Key "${scope.key}"; its answer held a secret, shown only that once.`);
    }
    const body = previous.transaction_id === null ? JSON.parse(previous.body!) : replayAward(db, previous.transaction_id, previous.counters!);
    return { status: previous.status, body, replayed: true };
  }
  const response = perform();
  const award = response.storeAs === 'award' ? (response.body as Award) : null;
  const secret = response.storeAs === 'secret';
  stmt(db, `INSERT OR REPLACE INTO idempotency_keys (project_id, key, fingerprint, status, body, transaction_id, counters, created_at)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(
    scope.projectId, key, fingerprint, secret ? SECRET_ANSWER : response.status,
    award ? null : secret ? 'null' : JSON.stringify(response.body),
    award ? awardRowId(db, scope.projectId, award) : null,
    award ? JSON.stringify([award.member.totalPointsEarned, award.member.currentStreak, award.member.longestStreak]) : null,
    now.getTime());
  return { status: response.status, body: response.body, replayed: false };
}

/** Keys deleted per transaction: a few milliseconds of write lock each (bench/README). */
export const PURGE_BATCH = 500;

/** Forgets up to `limit` keys older than the window, oldest first. Returns how many were removed. */
export function purgeIdempotencyKeys(db: Db, now: Date, limit = PURGE_BATCH): number {
  return stmt(db, `DELETE FROM idempotency_keys WHERE id IN
    (SELECT id FROM idempotency_keys WHERE created_at <= ? ORDER BY created_at LIMIT ?)`).run(now.getTime() - IDEMPOTENCY_WINDOW_MS, limit).changes;
}
