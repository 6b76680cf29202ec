import { widgetClaims } from '../../domain/widget/widget-claims.ts';
import { widgetClaimsQuery } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

/** "My rewards": the member's claims, newest first, with coupon code, digital content, raffle and fulfilment status. */
export function claimRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/claims', { feature: 'rewards', query: widgetClaimsQuery, responses: { 200: answers.claims } }, ({ session, query }) =>
    widgetClaims(ctx.db, session.projectId, session.externalId, query.limit));
}
