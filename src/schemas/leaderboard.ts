import * as v from 'valibot';
import { PERIODS } from '../domain/leaderboard/leaderboard.ts';
import { queryInt } from './common.ts';

const period = v.picklist(PERIODS, `must be one of ${PERIODS.join(', ')}`);

export const leaderboardQuery = v.strictObject({
  period: v.optional(period, 'all'),
  limit: v.optional(queryInt(1, 100), '10'),
});

export const memberRankQuery = v.strictObject({ period: v.optional(period) });
