import { checkinStatus, performCheckin } from '../../domain/games/checkin.ts';
import { playGame } from '../../domain/games/play.ts';
import { pathParam, readJson, readQuery, validate } from '../request.ts';
import { gameMemberBody, gameMemberQuery } from '../../schemas/games.ts';
import { mutate, ok, type ServerApi } from './api.ts';

/** Playing games and daily check-ins for a member (operators, kiosks, tests); the widget calls the same functions. */
export function gameRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/games/:id/play', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(gameMemberBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(playGame(ctx.db, key.projectId, pathParam(event, 'id'), body.externalId, key.prefix, now)));
  });

  route('GET', '/games/:id/checkin', (event, key, now) =>
    checkinStatus(ctx.db, key.projectId, pathParam(event, 'id'), readQuery(event, gameMemberQuery).externalId, now));

  route('POST', '/games/:id/checkin', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(gameMemberBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(performCheckin(ctx.db, key.projectId, pathParam(event, 'id'), body.externalId, key.prefix, now)));
  });
}
