import { widgetQuests } from '../../domain/widget/widget-availability.ts';
import type { WidgetApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

/** The quests that apply now, each with the member's progress and the multiplier a completion would get now. */
export function questRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/quests', { feature: 'quests', responses: { 200: answers.quests } }, ({ session, now }) => widgetQuests(ctx.db, session.projectId, session.externalId, now));
}
