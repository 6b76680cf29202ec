import { referralStats, regenerateReferralCode } from '../../domain/referrals/referrals.ts';
import { readJson, validate } from '../request.ts';
import { emptyBody } from '../../schemas/common.ts';
import type { WidgetApi } from './api.ts';

/** The member's referral code, link and results; both routes may create the code, so both write. */
export function referralRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/referral', 'referrals', async (_event, { session, now }) => {
    // The referrer limits are the operator's business (server API), not the member's.
    const { limits: _limits, ...view } = await ctx.write(() => referralStats(ctx.db, session.projectId, session.externalId, ctx.publicUrl(), now));
    return view;
  });

  route('POST', '/referral/code', 'referrals', async (event, { session, now }) => {
    validate(emptyBody, await readJson(event, { emptyAllowed: true }));
    return ctx.write(() => regenerateReferralCode(ctx.db, session.projectId, session.externalId, ctx.publicUrl(), now));
  });
}
