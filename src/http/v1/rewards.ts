import { memberClaims, memberRewards, redeemReward } from '../../domain/rewards/claims.ts';
import { redeemBody } from '../../schemas/rewards.ts';
import { withStoreCoupon } from '../commerce/claim-coupons.ts';
import type { ServerApi } from './api.ts';
import * as answers from '../../schemas/answers/server.ts';

export function rewardRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/rewards/:id/redeem', { body: redeemBody, write: true, forShopper: true, around: withStoreCoupon(ctx), responses: { 200: answers.rewardRedeemed } }, ({ key, body, param, now }) =>
    redeemReward(ctx.db, key.projectId, param('id'), body.externalId, key.prefix, now));

  route('GET', '/members/:externalId/rewards', { responses: { 200: answers.memberRewards } }, ({ key, param, now }) => memberRewards(ctx.db, key.projectId, param('externalId'), now));

  route('GET', '/members/:externalId/claims', { responses: { 200: answers.memberClaims } }, ({ key, param }) => memberClaims(ctx.db, key.projectId, param('externalId')));
}
