import { completeQuest, progressQuest, trackEvent } from '../../domain/quests/quest-progress.ts';
import { eventBody, questCompleteBody, questProgressBody } from '../../schemas/quests.ts';
import type { ServerApi } from './api.ts';

export function questRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/events', { body: eventBody, write: true }, ({ key, body, now }) => trackEvent(ctx.db, key.projectId, body, key.prefix, now));

  route('POST', '/quests/:id/progress', { body: questProgressBody, write: true }, ({ key, body, param, now }) =>
    progressQuest(ctx.db, key.projectId, param('id'), body, key.prefix, now));

  route('POST', '/quests/:id/complete', { body: questCompleteBody, write: true }, ({ key, body, param, now }) =>
    completeQuest(ctx.db, key.projectId, param('id'), body, key.prefix, now));
}
