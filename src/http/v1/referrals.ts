import { applyReferral, referralStats } from '../../domain/referrals/referrals.ts';
import { pathParam, readJson, validate } from '../request.ts';
import { referralApplyBody } from '../../schemas/referrals.ts';
import { mutate, ok, type ServerApi } from './api.ts';

export function referralRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/referrals/apply', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(referralApplyBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(applyReferral(ctx.db, key.projectId, body, key.prefix, now)));
  });

  // A read that may create the member's code on first use, so it runs as a write.
  route('GET', '/referrals/stats/:externalId', (event, key, now) =>
    ctx.write(() => referralStats(ctx.db, key.projectId, pathParam(event, 'externalId'), ctx.publicUrl(), now)));
}
