import { memberRewards } from '../../domain/rewards/claims.ts';
import { claimWidgetReward } from '../../domain/widget/widget-actions.ts';
import { widgetClaimBody } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';
import { withStoreCoupon } from '../commerce/claim-coupons.ts';
import * as answers from '../../schemas/answers/widget.ts';

/** The rewards as the member sees them, and claiming one (the coupon code, if any, is in the claim). */
export function rewardRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/rewards', { feature: 'rewards', responses: { 200: answers.rewards } }, ({ session, now }) => memberRewards(ctx.db, session.projectId, session.externalId, now));

  route('POST', '/rewards', { feature: 'rewards', body: widgetClaimBody, write: true, around: withStoreCoupon(ctx), responses: { 200: answers.rewardClaimed } }, ({ session, body, now }) =>
    claimWidgetReward(ctx.db, session.projectId, session.externalId, body.rewardId, now));
}
