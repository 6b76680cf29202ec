import { memberClaims, memberRewards, redeemReward } from '../../domain/rewards/claims.ts';
import { redeemBody } from '../../schemas/rewards.ts';
import { withStoreCoupon } from '../commerce/claim-coupons.ts';
import type { ServerApi } from './api.ts';

export function rewardRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/rewards/:id/redeem', { body: redeemBody, write: true, around: withStoreCoupon(ctx) }, ({ key, body, param, now }) =>
    redeemReward(ctx.db, key.projectId, param('id'), body.externalId, key.prefix, now));

  route('GET', '/members/:externalId/rewards', {}, ({ key, param, now }) => memberRewards(ctx.db, key.projectId, param('externalId'), now));

  route('GET', '/members/:externalId/claims', {}, ({ key, param }) => memberClaims(ctx.db, key.projectId, param('externalId')));
}
