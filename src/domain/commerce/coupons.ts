import * as v from 'valibot';
import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { addMs } from '../../shared/clock.ts';
import { conflict, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { readableCode } from '../../shared/codes.ts';
import { identifier } from '../../shared/value-schemas.ts';
import { postToLedger } from '../ledger/ledger.ts';
import { memberById, type MemberRow } from '../members/members.ts';
import { liveStore, requireStore, storeById, type StoreRow } from './stores.ts';

// The coupon job table's operations (as the webhook deliveries'): enqueue, lease, record created
// or failed, take over leases. A coupon is created in the store after the claim commits; while the
// store is down the job is retried with back-off, and the claim shows its code once it exists. A
// job that cannot succeed (the attempts are spent, the store was disconnected) ends FAILED, and a
// COUPON reward's claim then gets its points back.

export type DiscountType = 'PERCENTAGE' | 'FIXED_CART' | 'FIXED_PRODUCT';
export type CouponStatus = 'PENDING' | 'CREATED' | 'FAILED';

/** Waits after failed attempts 1, 2, 3…; the last repeats until the attempts are spent. */
export const COUPON_RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000, 6 * 60 * 60_000] as const;
/** Attempts per coupon: the schedule above reaches the 16th about 2.8 days after the claim, so a store down over a weekend still gets its coupons. */
export const COUPON_MAX_ATTEMPTS = 16;

/** A code the store answers must be one a member can read and type: printable, one line, at most 100 characters. */
const storeCode = identifier(100);

interface CouponRow {
  id: number;
  public_id: string;
  project_id: string;
  store_id: string;
  claim_id: number;
  claim_public_id: string;
  code: string;
  discount_type: DiscountType;
  discount_cents: number;
  email: string | null;
  status: CouponStatus;
  store_coupon_id: number | null;
  attempts: number;
  run_at: string;
  claim_code: string | null;
}

const COUPON_SELECT = `SELECT c.id, c.public_id, c.project_id, c.store_id, c.claim_id, r.public_id AS claim_public_id, c.code, c.discount_type,
  c.discount_cents, c.email, c.status, c.store_coupon_id, c.attempts, c.run_at, r.coupon_code AS claim_code
  FROM commerce_coupons c JOIN reward_claims r ON r.id = c.claim_id`;

/** A coupon as POST /api/commerce/coupons answers it. */
export interface CouponView {
  id: string;
  storeId: string;
  rewardClaimId: string;
  /** The store's code once the coupon exists there; null while it waits for the store. */
  code: string | null;
  status: CouponStatus;
  discountType: DiscountType;
  discountValue: number;
  storeCouponId: number | null;
}

const toView = (row: CouponRow): CouponView => ({
  id: row.public_id, storeId: row.store_id, rewardClaimId: row.claim_public_id, code: row.status === 'CREATED' ? row.claim_code : null,
  status: row.status, discountType: row.discount_type, discountValue: row.discount_cents / 100, storeCouponId: row.store_coupon_id,
});

/** A leased job: what the outside work needs. */
export interface CouponJob {
  /** The store: its coupons share one concurrency limit. */
  key: string;
  id: number;
  attempts: number;
  store: StoreRow;
  code: string;
  discountType: DiscountType;
  discountCents: number;
  email: string | null;
  claimId: string;
}

const toJob = (db: Db, row: CouponRow): CouponJob => ({
  key: row.store_id, id: row.id, attempts: row.attempts, store: storeById(db, row.store_id)!, code: row.code, discountType: row.discount_type,
  discountCents: row.discount_cents, email: row.email, claimId: row.claim_public_id,
});

/** The project's store that creates coupons for COUPON claims, when one is connected. */
export const couponStore = (db: Db, projectId: string): StoreRow | undefined => liveStore(db, projectId);

/** Records a coupon to create in the store for the claim, due now, in the claim's transaction. */
export function enqueueCoupon(db: Db, input: {
  store: StoreRow; claimRowId: number; code: string; discountType: DiscountType; discountCents: number; member: MemberRow;
}, now: Date): void {
  const at = now.toISOString();
  stmt(db, `INSERT INTO commerce_coupons (public_id, project_id, store_id, claim_id, code, discount_type, discount_cents, email, status, run_at,
    created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', ?, ?, ?)`)
    .run(newId('cpn'), input.store.project_id, input.store.id, input.claimRowId, input.code, input.discountType, input.discountCents,
      input.member.email, at, at, at);
}

/**
 * POST /api/commerce/coupons: the claim's coupon job, made (or re-aimed, while it waits) with the
 * given discount, due now; the route then creates it in the store after the commit. 404 for
 * another project's store or claim; 409 when the claim's coupon already exists in the store or the
 * claim has a code of its own.
 */
export function prepareCoupon(db: Db, projectId: string, input: { storeId: string; rewardClaimId: string; discountType: DiscountType; discountValue: number },
  now: Date): CouponView {
  return atomically(db, () => {
    const store = requireStore(db, projectId, input.storeId);
    const claim = stmt<{ id: number; coupon_code: string | null; email: string | null; reward_type: string }>(db, `SELECT c.id, c.coupon_code, m.email,
      r.type AS reward_type FROM reward_claims c JOIN members m ON m.id = c.member_id JOIN rewards r ON r.id = c.reward_id
      WHERE c.public_id = ? AND c.project_id = ?`).get(input.rewardClaimId, projectId);
    if (!claim) throw notFound(`No reward claim with id "${input.rewardClaimId}" in this project`);
    const cents = Math.round(input.discountValue * 100);
    const existing = stmt<CouponRow>(db, `${COUPON_SELECT} WHERE c.claim_id = ?`).get(claim.id);
    if (existing?.status === 'CREATED') throw conflict(`The claim "${input.rewardClaimId}" already has the store coupon "${existing.claim_code}".`);
    if (existing?.status === 'FAILED' && claim.reward_type === 'COUPON') {
      throw conflict(`The claim "${input.rewardClaimId}" ended without its coupon and its points were returned; the member can claim the reward again.`);
    }
    if (!existing && claim.coupon_code !== null) throw conflict(`The claim "${input.rewardClaimId}" already has the coupon code "${claim.coupon_code}".`);
    const at = now.toISOString();
    if (existing) {
      stmt(db, `UPDATE commerce_coupons SET store_id = ?, discount_type = ?, discount_cents = ?, status = 'PENDING', attempts = 0, last_error = NULL, run_at = ?,
        updated_at = ? WHERE id = ?`)
        .run(store.id, input.discountType, cents, at, at, existing.id);
    } else {
      stmt(db, `INSERT INTO commerce_coupons (public_id, project_id, store_id, claim_id, code, discount_type, discount_cents, email, status, run_at,
        created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'PENDING', ?, ?, ?)`)
        .run(newId('cpn'), projectId, store.id, claim.id, newCouponCode(), input.discountType, cents, claim.email, at, at, at);
    }
    return toView(stmt<CouponRow>(db, `${COUPON_SELECT} WHERE c.claim_id = ?`).get(claim.id)!);
  });
}

/** A coupon code asked of the store: 12 readable random characters (the store keeps codes in lower case). */
export const newCouponCode = () => readableCode(12).replace(/(.{4})(?=.)/g, '$1-');

function leaseRow(db: Db, row: CouponRow, now: Date, leaseUntil: Date): CouponJob | null {
  const leased = stmt(db, "UPDATE commerce_coupons SET run_at = ?, updated_at = ? WHERE id = ? AND status = 'PENDING' AND run_at <= ?")
    .run(leaseUntil.toISOString(), now.toISOString(), row.id, now.toISOString()).changes;
  return leased === 1 ? toJob(db, row) : null;
}

/** The claim's waiting coupon, leased for the caller to run now (right after a claim), or null when there is none or the runner has it. */
export function leaseCouponOfClaim(db: Db, claimPublicId: string, now: Date, leaseUntil: Date): CouponJob | null {
  return atomically(db, () => {
    const row = stmt<CouponRow>(db, `${COUPON_SELECT} WHERE r.public_id = ? AND c.status = 'PENDING'`).get(claimPublicId);
    return row ? leaseRow(db, row, now, leaseUntil) : null;
  });
}

/** The runner's claim: due coupons, by due time, leased. */
export function claimDueCoupons(db: Db, now: Date, leaseUntil: Date, limit: number): CouponJob[] {
  return atomically(db, () => {
    const rows = stmt<CouponRow>(db, `${COUPON_SELECT} WHERE c.status = 'PENDING' AND c.run_at <= ? ORDER BY c.run_at LIMIT ?`).all(now.toISOString(), limit);
    return rows.flatMap((row) => leaseRow(db, row, now, leaseUntil) ?? []);
  });
}

/** What recording an attempt did: the job's state after it, for the runner's log. */
export type CouponRecord = { status: 'CREATED' | 'PENDING'; attempts: number } | { status: 'FAILED'; attempts: number; pointsReturned: number };

/**
 * The store made a coupon: its code goes on the claim, where the member sees it. A code that is
 * not printable, or that another claim of the project already holds (a store must never hand one
 * member's code to another), is not used: the attempt failed, and the next one asks for a new code.
 */
export function recordCouponCreated(db: Db, jobId: number, created: { id: number; code: string }, now: Date): CouponRecord | null {
  return atomically(db, () => {
    const row = stmt<CouponRow>(db, `${COUPON_SELECT} WHERE c.id = ?`).get(jobId);
    if (row?.status !== 'PENDING') return null;
    if (!v.is(storeCode, created.code)) {
      return recordCouponFailed(db, jobId, `the store answered coupon ${created.id} with a code that is not printable text; a new code is asked for`, now, { newCode: true });
    }
    const holder = stmt<string>(db, 'SELECT public_id FROM reward_claims WHERE project_id = ? AND coupon_code = ? AND id <> ?').pluck()
      .get(row.project_id, created.code, row.claim_id);
    if (holder !== undefined) {
      return recordCouponFailed(db, jobId, `the store answered coupon ${created.id} with the code of claim ${holder}; a new code is asked for`, now, { newCode: true });
    }
    const at = now.toISOString();
    stmt(db, "UPDATE commerce_coupons SET status = 'CREATED', store_coupon_id = ?, attempts = attempts + 1, last_error = NULL, updated_at = ? WHERE id = ?")
      .run(created.id, at, jobId);
    stmt(db, 'UPDATE reward_claims SET coupon_code = ?, updated_at = ? WHERE id = ?').run(created.code, at, row.claim_id);
    return { status: 'CREATED', attempts: row.attempts + 1 };
  });
}

/**
 * An attempt failed: due again after the next back-off (with a new code when the store's answer
 * could not be used). The last attempt, or a store disconnected meanwhile, ends the job: FAILED,
 * and the points the member spent on a COUPON reward come back to them.
 */
export function recordCouponFailed(db: Db, jobId: number, error: string, now: Date, options: { newCode?: boolean } = {}): CouponRecord | null {
  return atomically(db, () => {
    const row = stmt<CouponRow>(db, `${COUPON_SELECT} WHERE c.id = ?`).get(jobId);
    if (row?.status !== 'PENDING') return null;
    const attempts = row.attempts + 1;
    const live = storeById(db, row.store_id)?.deleted_at === null;
    const ends = !live || attempts >= COUPON_MAX_ATTEMPTS;
    const delay = COUPON_RETRY_DELAYS_MS[Math.min(attempts - 1, COUPON_RETRY_DELAYS_MS.length - 1)]!;
    stmt(db, 'UPDATE commerce_coupons SET status = ?, attempts = ?, last_error = ?, run_at = ?, code = ?, updated_at = ? WHERE id = ?')
      .run(ends ? 'FAILED' : 'PENDING', attempts, error.slice(0, 500), addMs(now, ends ? 0 : delay).toISOString(),
        options.newCode ? newCouponCode() : row.code, now.toISOString(), jobId);
    return ends ? { status: 'FAILED', attempts, pointsReturned: returnClaimPoints(db, row, now) } : { status: 'PENDING', attempts };
  });
}

/** A COUPON reward's claim whose coupon was never made: the points spent on it back to the member, and its stock back. Returns the points. */
function returnClaimPoints(db: Db, row: CouponRow, now: Date): number {
  const claim = stmt<{ member_id: number; points_spent: number; reward_id: string; name: string; type: string }>(db, `SELECT c.member_id, c.points_spent,
    c.reward_id, r.name, r.type FROM reward_claims c JOIN rewards r ON r.id = c.reward_id WHERE c.id = ?`).get(row.claim_id)!;
  // Another kind of claim (POST /api/commerce/coupons for a custom reward) was given what it was claimed for.
  if (claim.type !== 'COUPON') return 0;
  stmt(db, 'UPDATE rewards SET stock = stock + 1, updated_at = ? WHERE id = ? AND stock IS NOT NULL').run(now.toISOString(), claim.reward_id);
  const member = memberById(db, claim.member_id);
  if (claim.points_spent === 0 || member.erased_at !== null) return 0;
  postToLedger(db, member, {
    amount: claim.points_spent, type: 'REFUNDED', source: 'reward', actor: 'system', description: `Points returned: the store could not create the coupon of ${claim.name}`,
    referenceId: claim.reward_id, metadata: { rewardId: claim.reward_id, claimId: row.claim_public_id },
  }, now);
  return claim.points_spent;
}

/** The coupon jobs as doctor reports them: waiting for their store, and failed for good. */
export function couponHealth(db: Db): { pending: number; failed: number } {
  const counts = stmt<{ status: CouponStatus; n: number }>(db, "SELECT status, count(*) AS n FROM commerce_coupons WHERE status <> 'CREATED' GROUP BY status").all();
  return { pending: counts.find((c) => c.status === 'PENDING')?.n ?? 0, failed: counts.find((c) => c.status === 'FAILED')?.n ?? 0 };
}

export const nextCouponDueAt = (db: Db): string | null =>
  stmt<string | null>(db, "SELECT min(run_at) FROM commerce_coupons WHERE status = 'PENDING'").pluck().get() ?? null;

/** At start-up a lease left by a process that died is due at once (one server owns the file). */
export function takeOverCouponLeases(db: Db, now: Date): void {
  stmt(db, "UPDATE commerce_coupons SET run_at = ? WHERE status = 'PENDING' AND run_at > ? AND attempts = 0").run(now.toISOString(), now.toISOString());
}

export const couponOfClaim = (db: Db, claimPublicId: string): CouponView | null => {
  const row = stmt<CouponRow>(db, `${COUPON_SELECT} WHERE r.public_id = ?`).get(claimPublicId);
  return row ? toView(row) : null;
};

/** A claim's coupon code as it stands (after its store coupon was created, the store's). */
export const claimCouponCode = (db: Db, claimPublicId: string): string | null =>
  stmt<string | null>(db, 'SELECT coupon_code FROM reward_claims WHERE public_id = ?').pluck().get(claimPublicId) ?? null;
