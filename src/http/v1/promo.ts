import { redeemPromoCode } from '../../domain/promo/redeem-promo.ts';
import { readJson, validate } from '../request.ts';
import { promoRedeemBody } from '../../schemas/promo.ts';
import { mutate, ok, type ServerApi } from './api.ts';

export function promoRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/promo-codes/redeem', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(promoRedeemBody, rawBody);
    // Per member only: every shopper's attempt comes from the shop's own server address.
    return ctx.guard.promoAttempt({ projectId: key.projectId, externalId: body.externalId }, () =>
      mutate(event, ctx, key, now, { rawBody }, () => {
        const { redemption, member } = redeemPromoCode(ctx.db, key.projectId, body, key.prefix, now);
        return ok({ redemption, member });
      }));
  });
}
