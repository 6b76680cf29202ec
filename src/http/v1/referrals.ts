import { applyReferral, referralStats } from '../../domain/referrals/referrals.ts';
import { referralApplyBody } from '../../schemas/referrals.ts';
import type { ServerApi } from './api.ts';
import * as answers from '../../schemas/answers/server.ts';

export function referralRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/referrals/apply', { body: referralApplyBody, write: true, forShopper: true, responses: { 200: answers.referralApplied } }, ({ key, body, now }) =>
    applyReferral(ctx.db, key.projectId, body, key.prefix, now));

  // A read that may create the member's code on first use, so it runs as a write.
  route('GET', '/referrals/stats/:externalId', { write: true, responses: { 200: answers.referralStatsAnswer } }, ({ key, param, now }) =>
    referralStats(ctx.db, key.projectId, param('externalId'), ctx.publicUrl(), now));
}
