import { completeQuest, progressQuest, trackEvent } from '../../domain/quests/quest-progress.ts';
import { pathParam, readJson, validate } from '../request.ts';
import { eventBody, questCompleteBody, questProgressBody } from '../../schemas/quests.ts';
import { mutate, ok, type ServerApi } from './api.ts';

export function questRoutes({ route, ctx }: ServerApi): void {
  route('POST', '/events', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(eventBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(trackEvent(ctx.db, key.projectId, body, key.prefix, now)));
  });

  route('POST', '/quests/:id/progress', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(questProgressBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(progressQuest(ctx.db, key.projectId, pathParam(event, 'id'), body, key.prefix, now)));
  });

  route('POST', '/quests/:id/complete', async (event, key, now) => {
    const rawBody = await readJson(event);
    const body = validate(questCompleteBody, rawBody);
    return mutate(event, ctx, key, now, { rawBody }, () => ok(completeQuest(ctx.db, key.projectId, pathParam(event, 'id'), body, key.prefix, now)));
  });
}
