import { checkinStatus, performCheckin } from '../../domain/games/checkin.ts';
import { playableGames, playGame } from '../../domain/games/play.ts';
import { requireFeature } from '../../domain/widget/widget-config.ts';
import { pathParam, readJson, validate } from '../request.ts';
import { emptyBody } from '../../schemas/common.ts';
import type { WidgetApi } from './api.ts';

/** Games and the daily check-in: `games` and `checkin` are separate features, so each shows only its own kind. */
export function gameRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/games', null, (_event, { session, config }) => {
    const { games, checkin } = config.widgetSettings.features;
    if (!games && !checkin) requireFeature(config, 'games');
    const live = playableGames(ctx.db, session.projectId).games;
    return { games: live.filter((game) => (game.type === 'DAILY_CHECKIN' ? checkin : games)) };
  });

  route('POST', '/games/:id/play', 'games', async (event, { session, now }) => {
    validate(emptyBody, await readJson(event, { emptyAllowed: true }));
    return ctx.write(() => playGame(ctx.db, session.projectId, pathParam(event, 'id'), session.externalId, 'widget', now));
  });

  route('GET', '/games/:id/checkin', 'checkin', (event, { session, now }) =>
    checkinStatus(ctx.db, session.projectId, pathParam(event, 'id'), session.externalId, now));

  route('POST', '/games/:id/checkin', 'checkin', async (event, { session, now }) => {
    validate(emptyBody, await readJson(event, { emptyAllowed: true }));
    return ctx.write(() => performCheckin(ctx.db, session.projectId, pathParam(event, 'id'), session.externalId, 'widget', now));
  });
}
