import * as v from 'valibot';
import { widgetClaims } from '../../domain/widget/widget-claims.ts';
import { readQuery } from '../request.ts';
import { queryInt } from '../../schemas/common.ts';
import type { WidgetApi } from './api.ts';

const claimsQuery = v.strictObject({ limit: v.optional(queryInt(1, 100), '50') });

/** "My rewards": the member's claims, newest first, with coupon code, digital content, raffle and fulfilment status. */
export function claimRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/claims', 'rewards', (event, { session }) =>
    widgetClaims(ctx.db, session.projectId, session.externalId, readQuery(event, claimsQuery).limit));
}
