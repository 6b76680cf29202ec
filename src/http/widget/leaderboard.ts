import { memberLeaderboard } from '../../domain/leaderboard/leaderboard.ts';
import { leaderboardQuery } from '../../schemas/leaderboard.ts';
import type { WidgetApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

/** The top of the period (`period`, `limit` as in the server API) and the member's own rank. */
export function leaderboardRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/leaderboard', { feature: 'leaderboard', query: leaderboardQuery, responses: { 200: answers.leaderboard } }, ({ session, query, now }) =>
    memberLeaderboard(ctx.db, session.projectId, session.externalId, query, now));
}
