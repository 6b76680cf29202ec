import { completeQuest, progressQuest, trackEvent } from '../../domain/quests/quest-progress.ts';
import { eventBody, questCompleteBody, questProgressBody } from '../../schemas/quests.ts';
import type { ServerApi } from './api.ts';
import * as answers from '../../schemas/answers/server.ts';

export function questRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/events', { body: eventBody, write: true, forShopper: true, responses: { 200: answers.eventTracked } }, ({ key, body, now }) => trackEvent(ctx.db, key.projectId, body, key.prefix, now));

  route('POST', '/quests/:id/progress', { body: questProgressBody, write: true, forShopper: true, responses: { 200: answers.questProgressed } }, ({ key, body, param, now }) =>
    progressQuest(ctx.db, key.projectId, param('id'), body, key.prefix, now));

  route('POST', '/quests/:id/complete', { body: questCompleteBody, write: true, forShopper: true, responses: { 200: answers.questCompleted } }, ({ key, body, param, now }) =>
    completeQuest(ctx.db, key.projectId, param('id'), body, key.prefix, now));
}
