import { regenerateReferralCode } from '../../domain/referrals/referrals.ts';
import { widgetReferral } from '../../domain/widget/widget-actions.ts';
import { emptyBody } from '../../schemas/common.ts';
import type { WidgetApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

/** The member's referral code, link and results; both routes may create the code, so both write. */
export function referralRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/referral', { feature: 'referrals', write: true, responses: { 200: answers.referral } }, ({ session, now }) =>
    widgetReferral(ctx.db, session.projectId, session.externalId, ctx.publicUrl(), now));

  route('POST', '/referral/code', { feature: 'referrals', body: emptyBody, optionalBody: true, write: true, responses: { 200: answers.referralCodeAnswer } }, ({ session, now }) =>
    regenerateReferralCode(ctx.db, session.projectId, session.externalId, ctx.publicUrl(), now));
}
