import { memberClaims, memberRewards, redeemReward } from '../../domain/rewards/claims.ts';
import { pathParam, readJson, validate } from '../request.ts';
import { redeemBody } from '../../schemas/rewards.ts';
import { mutate, ok, type ServerApi } from './api.ts';

export function rewardRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/rewards/:id/redeem', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(redeemBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(redeemReward(ctx.db, key.projectId, pathParam(event, 'id'), body.externalId, key.prefix, now)));
  });

  route('GET', '/members/:externalId/rewards', (event, key, now) => memberRewards(ctx.db, key.projectId, pathParam(event, 'externalId'), now));

  route('GET', '/members/:externalId/claims', (event, key) => memberClaims(ctx.db, key.projectId, pathParam(event, 'externalId')));
}
