import { reportQuest } from '../../domain/quests/quest-progress.ts';
import { emptyBody } from '../../schemas/common.ts';
import type { WidgetApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

/** "I did it": the member reports a step of a SELF_REPORT quest; the shop completes the other kinds. */
export function questReportRoutes({ route, ctx }: WidgetApi): void {
  route('POST', '/quests/:id/report', { feature: 'quests', body: emptyBody, optionalBody: true, write: true, responses: { 200: answers.questReported } }, ({ session, now, param }) =>
    reportQuest(ctx.db, session.projectId, param('id'), session.externalId, now));
}
