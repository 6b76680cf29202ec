import { performCheckin } from '../../domain/games/checkin.ts';
import { playGame } from '../../domain/games/play.ts';
import { widgetCheckin, widgetGames } from '../../domain/widget/widget-availability.ts';
import { emptyBody } from '../../schemas/common.ts';
import type { WidgetApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

/** Games and the daily check-in, each with its availability and multiplier now; `games` and `checkin` are separate features. */
export function gameRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/games', { responses: { 200: answers.games } }, ({ session, config, now }) => widgetGames(ctx.db, session.projectId, session.externalId, config, now));

  route('POST', '/games/:id/play', { feature: 'games', body: emptyBody, optionalBody: true, write: true, responses: { 200: answers.playResult } }, ({ session, param, now }) =>
    playGame(ctx.db, session.projectId, param('id'), session.externalId, 'widget', now));

  route('GET', '/games/:id/checkin', { feature: 'checkin', responses: { 200: answers.checkin } }, ({ session, param, now }) =>
    widgetCheckin(ctx.db, session.projectId, param('id'), session.externalId, now));

  route('POST', '/games/:id/checkin', { feature: 'checkin', body: emptyBody, optionalBody: true, write: true, responses: { 200: answers.checkinResult } }, ({ session, param, now }) =>
    performCheckin(ctx.db, session.projectId, param('id'), session.externalId, 'widget', now));
}
