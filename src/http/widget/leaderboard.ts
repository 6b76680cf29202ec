import { memberLeaderboard } from '../../domain/leaderboard/leaderboard.ts';
import { readQuery } from '../request.ts';
import { leaderboardQuery } from '../../schemas/leaderboard.ts';
import type { WidgetApi } from './api.ts';

/** The top of the period (`period`, `limit` as in the server API) and the member's own rank. */
export function leaderboardRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/leaderboard', 'leaderboard', (event, { session, now }) =>
    memberLeaderboard(ctx.db, session.projectId, session.externalId, readQuery(event, leaderboardQuery), now));
}
