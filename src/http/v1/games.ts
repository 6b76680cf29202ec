import { checkinStatus, performCheckin } from '../../domain/games/checkin.ts';
import { playGame } from '../../domain/games/play.ts';
import { gameMemberBody, gameMemberQuery } from '../../schemas/games.ts';
import type { ServerApi } from './api.ts';
import * as answers from '../../schemas/answers/server.ts';

/** Playing games and daily check-ins for a member (operators, kiosks, tests); the widget calls the same functions. */
export function gameRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/games/:id/play', { body: gameMemberBody, write: true, forShopper: true, responses: { 200: answers.playResult } }, ({ key, body, param, now }) =>
    playGame(ctx.db, key.projectId, param('id'), body.externalId, key.prefix, now));

  route('GET', '/games/:id/checkin', { query: gameMemberQuery, responses: { 200: answers.checkinStatus } }, ({ key, param, query, now }) =>
    checkinStatus(ctx.db, key.projectId, param('id'), query.externalId, now));

  route('POST', '/games/:id/checkin', { body: gameMemberBody, write: true, forShopper: true, responses: { 200: answers.checkinResult } }, ({ key, body, param, now }) =>
    performCheckin(ctx.db, key.projectId, param('id'), body.externalId, key.prefix, now));
}
