import * as v from 'valibot';
import { prepareCoupon } from '../../domain/commerce/coupons.ts';
import { createCouponNow } from '../../integrations/commerce/coupon-jobs.ts';
import { couponAnswer, couponBody } from '../../schemas/commerce.ts';
import { Answer } from '../route.ts';
import type { CommerceApi } from './api.ts';
import { commerceDeps } from './deps.ts';

const prepared = v.object({ rewardClaimId: v.string() });

export function couponRoutes({ route, ctx }: CommerceApi): void {
  const deps = commerceDeps(ctx);
  // The job is recorded in the transaction (with Idempotency-Key); the store is called after the commit, outside any transaction.
  route('POST', '/coupons', {
    body: couponBody, write: true, responses: { 201: couponAnswer, 202: couponAnswer },
    around: async ({ event }, run) => {
      const answer = await run();
      if (!v.is(prepared, answer)) return answer;
      const { coupon, status } = await createCouponNow(deps, answer.rewardClaimId);
      event.res.status = status;
      return coupon ?? answer;
    },
  }, ({ key, body, now }) => new Answer(prepareCoupon(ctx.db, key.projectId, body, now), 202));
}
