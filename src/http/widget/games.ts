import { checkinStatus, performCheckin } from '../../domain/games/checkin.ts';
import { playableGames, playGame } from '../../domain/games/play.ts';
import { checkinAvailability, gameAvailability, multiplierNow } from '../../domain/widget/widget-availability.ts';
import { requireFeature } from '../../domain/widget/widget-config.ts';
import { pathParam, readJson, validate } from '../request.ts';
import { emptyBody } from '../../schemas/common.ts';
import type { WidgetApi } from './api.ts';

/**
 * Games and the daily check-in: `games` and `checkin` are separate features, so each shows only
 * its own kind. Each game says whether the member may play now (`availability`) and the multiplier
 * its prizes get now; the check-in says when it opens again and its multiplier.
 */
export function gameRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/games', null, (_event, { session, config, now }) => {
    const { games, checkin } = config.widgetSettings.features;
    if (!games && !checkin) requireFeature(config, 'games');
    const { projectId, externalId } = session;
    const live = playableGames(ctx.db, projectId).games.filter((game) => (game.type === 'DAILY_CHECKIN' ? checkin : games));
    return {
      games: live.map((game) => ({
        ...game,
        multiplier: multiplierNow(ctx.db, projectId, now, game.type === 'DAILY_CHECKIN' ? 'checkin' : 'game'),
        availability: game.type === 'DAILY_CHECKIN' ? null : gameAvailability(ctx.db, projectId, game.id, externalId, now),
      })),
    };
  });

  route('POST', '/games/:id/play', 'games', async (event, { session, now }) => {
    validate(emptyBody, await readJson(event, { emptyAllowed: true }));
    return ctx.write(() => playGame(ctx.db, session.projectId, pathParam(event, 'id'), session.externalId, 'widget', now));
  });

  route('GET', '/games/:id/checkin', 'checkin', (event, { session, now }) => {
    const status = checkinStatus(ctx.db, session.projectId, pathParam(event, 'id'), session.externalId, now);
    return {
      ...status,
      multiplier: multiplierNow(ctx.db, session.projectId, now, 'checkin'),
      availability: checkinAvailability(ctx.db, session.projectId, status.canCheckin, now),
    };
  });

  route('POST', '/games/:id/checkin', 'checkin', async (event, { session, now }) => {
    validate(emptyBody, await readJson(event, { emptyAllowed: true }));
    return ctx.write(() => performCheckin(ctx.db, session.projectId, pathParam(event, 'id'), session.externalId, 'widget', now));
  });
}
