import {
  claimDueCoupons, couponOfClaim, leaseCouponOfClaim, nextCouponDueAt, recordCouponCreated, recordCouponFailed, takeOverCouponLeases,
  type CouponJob, type CouponView, type DiscountType,
} from '../../domain/commerce/coupons.ts';
import { fromCents } from '../../domain/commerce/points-math.ts';
import { credentialsOf } from '../../domain/commerce/stores.ts';
import { addMs } from '../../shared/clock.ts';
import { JobRunner } from '../../jobs/runner.ts';
import type { CommerceDeps } from './connect.ts';
import { createCoupon } from './woo-client.ts';

/** How long a leased coupon job is left to its runner: longer than one REST call may take. */
const LEASE_MS = 60_000;

const WOO_TYPES: Record<DiscountType, 'percent' | 'fixed_cart' | 'fixed_product'> = {
  PERCENTAGE: 'percent', FIXED_CART: 'fixed_cart', FIXED_PRODUCT: 'fixed_product',
};

export type CouponOutcome = { created: { id: number; code: string } } | { error: string };

/** Creates the job's coupon in its store; failures are outcomes, never thrown. */
export async function performCoupon(deps: CommerceDeps, job: CouponJob): Promise<CouponOutcome> {
  try {
    const created = await createCoupon(credentialsOf(deps.box, job.store), deps.commerce, {
      code: job.code, discountType: WOO_TYPES[job.discountType], amount: fromCents(job.discountCents), email: job.email,
      description: `Punchcard reward claim ${job.claimId}`,
    });
    return { created };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** Records an attempt's outcome; a job that ended without its coupon is logged for the operator (doctor counts them too). */
export function recordCoupon(deps: CommerceDeps, job: CouponJob, outcome: CouponOutcome, now: Date): void {
  const recorded = 'created' in outcome ? recordCouponCreated(deps.db, job.id, outcome.created, now) : recordCouponFailed(deps.db, job.id, outcome.error, now);
  if (recorded?.status !== 'FAILED') return;
  const returned = recorded.pointsReturned > 0 ? `; the ${recorded.pointsReturned} points spent on it were returned to the member` : '';
  deps.log.warn(`commerce: the store coupon of claim ${job.claimId} failed for good after ${recorded.attempts} attempt(s)${returned}`);
}

/** The attempt threw, or its outcome could not be recorded: it counts as a failed attempt all the same. */
const recordCouponError = (deps: CommerceDeps, job: CouponJob, error: string, now: Date) => recordCoupon(deps, job, { error }, now);

async function runLeased(deps: CommerceDeps, job: CouponJob): Promise<void> {
  const outcome = await performCoupon(deps, job);
  try {
    await deps.write(() => recordCoupon(deps, job, outcome, deps.clock()));
  } catch (error) {
    // The claim is committed: its answer must not fail over its coupon, which the runner retries.
    deps.log.error(`commerce: recording the store coupon of claim ${job.claimId} failed`, error);
    await deps.write(() => recordCouponError(deps, job, 'internal_error (the outcome could not be recorded; see the server log)', deps.clock()));
  }
}

/**
 * Right after a COUPON claim committed: creates its store coupon at once, so the answer carries
 * the store's code. A store that is down leaves the job to the runner's retries.
 */
export async function createClaimCouponNow(deps: CommerceDeps, claimId: string): Promise<void> {
  const job = await deps.write(() => {
    const now = deps.clock();
    return leaseCouponOfClaim(deps.db, claimId, now, addMs(now, LEASE_MS));
  });
  if (job) await runLeased(deps, job);
}

/** After POST /api/commerce/coupons committed its job: the coupon created at once; 201 when it exists in the store, 202 while it waits for the store. */
export async function createCouponNow(deps: CommerceDeps, claimId: string): Promise<{ coupon: CouponView | null; status: 201 | 202 }> {
  await createClaimCouponNow(deps, claimId);
  const coupon = couponOfClaim(deps.db, claimId);
  return { coupon, status: coupon?.status === 'CREATED' ? 201 : 202 };
}

/** The runner of the coupon job table: retries what the claim's own attempt could not create, with back-off. */
export function createCouponRunner(deps: CommerceDeps, options: { pollMs?: number } = {}): JobRunner<CouponJob, CouponOutcome> {
  return new JobRunner<CouponJob, CouponOutcome>({
    claim: (now, leaseUntil, { limit }) => claimDueCoupons(deps.db, now, leaseUntil, limit),
    perform: (job) => performCoupon(deps, job),
    record: (job, outcome, now) => recordCoupon(deps, job, outcome, now),
    fail: (job, error, now) => recordCouponError(deps, job, error, now),
    nextDueAt: () => nextCouponDueAt(deps.db),
    takeOverLeases: (now) => takeOverCouponLeases(deps.db, now),
  }, { write: deps.write, clock: deps.clock, log: deps.log, concurrency: 4, perKey: 2, leaseMs: LEASE_MS, pollMs: options.pollMs ?? 15_000 });
}
