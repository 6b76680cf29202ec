import { widgetHistory } from '../../domain/widget/widget-views.ts';
import { readQuery } from '../request.ts';
import { widgetHistoryQuery } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';

export function historyRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/history', 'points', (event, { session }) =>
    widgetHistory(ctx.db, session.projectId, session.externalId, readQuery(event, widgetHistoryQuery)));
}
