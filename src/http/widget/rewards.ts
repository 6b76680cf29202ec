import { memberRewards, redeemReward } from '../../domain/rewards/claims.ts';
import { readJson, validate } from '../request.ts';
import { widgetClaimBody } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';

/** The rewards as the member sees them, and claiming one (the coupon code, if any, is in the claim). */
export function rewardRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/rewards', 'rewards', (_event, { session, now }) => memberRewards(ctx.db, session.projectId, session.externalId, now));

  route('POST', '/rewards', 'rewards', async (event, { session, now }) => {
    const { rewardId } = validate(widgetClaimBody, await readJson(event));
    const { success, claim, member } = await ctx.write(() => redeemReward(ctx.db, session.projectId, rewardId, session.externalId, 'widget', now));
    return { success, claim, member: { points: member.points } };
  });
}
