import { leaderboard, memberRanks } from '../../domain/leaderboard/leaderboard.ts';
import { pathParam, readQuery } from '../request.ts';
import { leaderboardQuery, memberRankQuery } from '../../schemas/leaderboard.ts';
import type { ServerApi } from './api.ts';

export function leaderboardRoutes({ route, ctx }: ServerApi): void {
  route('GET', '/leaderboard', (event, key, now) => leaderboard(ctx.db, key.projectId, readQuery(event, leaderboardQuery), now));

  route('GET', '/leaderboard/members/:externalId', (event, key, now) =>
    memberRanks(ctx.db, key.projectId, pathParam(event, 'externalId'), readQuery(event, memberRankQuery).period, now));
}
