import { widgetQuests } from '../../domain/widget/widget-availability.ts';
import type { WidgetApi } from './api.ts';

/** The quests that apply now, each with the member's progress and the multiplier a completion would get now. */
export function questRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/quests', { feature: 'quests' }, ({ session, now }) => widgetQuests(ctx.db, session.projectId, session.externalId, now));
}
