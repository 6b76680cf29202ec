import { redeemPromoCode } from '../../domain/promo/redeem-promo.ts';
import { promoRedeemBody } from '../../schemas/promo.ts';
import type { ServerApi } from './api.ts';
import * as answers from '../../schemas/answers/server.ts';

export function promoRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/promo-codes/redeem', {
    body: promoRedeemBody,
    write: true,
    forShopper: true,
    responses: { 200: answers.promoRedeemed },
    // Per member only: every shopper's attempt comes from the shop's own server address.
    around: ({ key, body }, run) => ctx.guard.promoAttempt({ projectId: key.projectId, externalId: body.externalId }, run),
  }, ({ key, body, now }) => {
    const { redemption, member } = redeemPromoCode(ctx.db, key.projectId, body, key.prefix, now);
    return { redemption, member };
  });
}
