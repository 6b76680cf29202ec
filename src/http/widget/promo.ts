import { redeemWidgetPromo } from '../../domain/widget/widget-actions.ts';
import { widgetPromoBody } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

/** Promo-code entry; wrong codes count against the member and the address (Guard.promoAttempt). */
export function promoRoutes({ route, ctx }: WidgetApi): void {
  route('POST', '/promo-code', {
    feature: 'promo',
    body: widgetPromoBody,
    write: true,
    responses: { 200: answers.promoRedeemed },
    around: ({ session, event }, run) => ctx.guard.promoAttempt({ projectId: session.projectId, externalId: session.externalId, event }, run),
  }, ({ session, body, now }) => redeemWidgetPromo(ctx.db, session.projectId, session.externalId, body.code, now));
}
