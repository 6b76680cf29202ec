import { createCouponForClaim } from '../../integrations/commerce/coupon-jobs.ts';
import { couponAnswer, couponBody } from '../../schemas/commerce.ts';
import { Answer } from '../route.ts';
import type { CommerceApi } from './api.ts';
import { commerceDeps } from './deps.ts';

export function couponRoutes({ route, ctx }: CommerceApi): void {
  const deps = commerceDeps(ctx);
  // Not `write`: the coupon is created in the store outside any transaction; the job's rows are written before and after.
  route('POST', '/coupons', { body: couponBody, responses: { 201: couponAnswer, 202: couponAnswer } }, async ({ key, body }) => {
    const { coupon, status } = await createCouponForClaim(deps, key.projectId, body);
    return new Answer(coupon, status);
  });
}
