import { widgetHistory } from '../../domain/widget/widget-views.ts';
import { widgetHistoryQuery } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';

export function historyRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/history', { feature: 'points', query: widgetHistoryQuery }, ({ session, query }) =>
    widgetHistory(ctx.db, session.projectId, session.externalId, query));
}
