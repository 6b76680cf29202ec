import { listCommunityEvents } from '../../domain/community/event-log.ts';
import { communityLogAnswer, communityLogsQuery } from '../../schemas/community.ts';
import type { ServerApi } from '../v1/api.ts';

/** GET /api/community/events/logs: recent deliveries with their outcome and errors, newest first, paginated. */
export function communityLogRoutes({ route, ctx }: ServerApi): void {
  route('GET', '/events/logs', { query: communityLogsQuery, responses: { 200: communityLogAnswer } }, ({ key, query }) =>
    listCommunityEvents(ctx.db, key.projectId, query));
}
