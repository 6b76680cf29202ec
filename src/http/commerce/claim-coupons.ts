import * as v from 'valibot';
import { claimCouponCode } from '../../domain/commerce/coupons.ts';
import { createClaimCouponNow } from '../../integrations/commerce/coupon-jobs.ts';
import type { AppContext } from '../context.ts';
import { commerceDeps } from './deps.ts';

/** A claim answer whose COUPON claim has no code yet: its store coupon is waiting to be created. */
const waitingCoupon = v.object({ claim: v.object({ id: v.string(), reward: v.object({ type: v.literal('COUPON') }), couponCode: v.optional(v.undefined()) }) });

/**
 * `around` for the routes that claim rewards: after the claim commits, a COUPON claim in a
 * project with a connected store gets its coupon created in the store at once, and the answer
 * carries the store's code. When the store is down the claim stands, and the code appears once
 * the retried job has created it.
 */
export const withStoreCoupon = (ctx: AppContext) => async (_input: unknown, run: () => Promise<unknown>): Promise<unknown> => {
  const answer = await run();
  if (!v.is(waitingCoupon, answer)) return answer;
  await createClaimCouponNow(commerceDeps(ctx), answer.claim.id);
  const code = claimCouponCode(ctx.db, answer.claim.id);
  return code === null ? answer : { ...answer, claim: { ...answer.claim, couponCode: code } };
};
