import { memberQuestBoard } from '../../domain/quests/quest-progress.ts';
import { multiplierNow } from '../../domain/widget/widget-availability.ts';
import type { WidgetApi } from './api.ts';

/** The quests that apply now, each with the member's progress and the multiplier a completion would get now. */
export function questRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/quests', 'quests', (_event, { session, now }) => {
    const multiplier = multiplierNow(ctx.db, session.projectId, now, 'quest');
    return { quests: memberQuestBoard(ctx.db, session.projectId, session.externalId, now).quests.map((quest) => ({ ...quest, multiplier })) };
  });
}
