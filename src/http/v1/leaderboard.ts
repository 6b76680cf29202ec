import { leaderboard, memberRanks } from '../../domain/leaderboard/leaderboard.ts';
import { leaderboardQuery, memberRankQuery } from '../../schemas/leaderboard.ts';
import type { ServerApi } from './api.ts';
import * as answers from '../../schemas/answers/server.ts';

export function leaderboardRoutes({ route, ctx }: ServerApi): void {
  route('GET', '/leaderboard', { query: leaderboardQuery, responses: { 200: answers.leaderboard } }, ({ key, query, now }) => leaderboard(ctx.db, key.projectId, query, now));

  route('GET', '/leaderboard/members/:externalId', { query: memberRankQuery, responses: { 200: answers.memberRanks } }, ({ key, param, query, now }) =>
    memberRanks(ctx.db, key.projectId, param('externalId'), query.period, now));
}
