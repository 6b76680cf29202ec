import { redeemPromoCode } from '../../domain/promo/redeem-promo.ts';
import { readJson, validate } from '../request.ts';
import { widgetPromoBody } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';

/** Promo-code entry: `{success, pointsAwarded, basePoints, multiplier, message}`, plus the claim a REWARD code gave and the new balance. */
export function promoRoutes({ route, ctx }: WidgetApi): void {
  route('POST', '/promo-code', 'promo', async (event, { session, now }) => {
    const { code } = validate(widgetPromoBody, await readJson(event));
    const { projectId, externalId } = session;
    const { redemption, member, pointsAwarded, basePoints, multiplier, message } = await ctx.guard.promoAttempt({ projectId, externalId, event }, () =>
      ctx.write(() => redeemPromoCode(ctx.db, projectId, { externalId, code }, 'widget', now)));
    return { success: true, pointsAwarded, basePoints, multiplier, message, claim: redemption.reward, member: { points: member.points } };
  });
}
