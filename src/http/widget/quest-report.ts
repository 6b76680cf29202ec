import { reportQuest } from '../../domain/quests/quest-progress.ts';
import { emptyBody } from '../../schemas/common.ts';
import { pathParam, readJson, validate } from '../request.ts';
import type { WidgetApi } from './api.ts';

/** "I did it": the member reports a step of a SELF_REPORT quest; the shop completes the other kinds. */
export function questReportRoutes({ route, ctx }: WidgetApi): void {
  route('POST', '/quests/:id/report', 'quests', async (event, { session, now }) => {
    validate(emptyBody, await readJson(event, { emptyAllowed: true }));
    return ctx.write(() => reportQuest(ctx.db, session.projectId, pathParam(event, 'id'), session.externalId, now));
  });
}
