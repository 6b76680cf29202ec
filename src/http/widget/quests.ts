import { memberQuestBoard } from '../../domain/quests/quest-progress.ts';
import type { WidgetApi } from './api.ts';

/** The quests that apply now, each with the member's progress. */
export function questRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/quests', 'quests', (_event, { session, now }) => memberQuestBoard(ctx.db, session.projectId, session.externalId, now));
}
