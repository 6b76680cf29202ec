import { widgetHistory } from '../../domain/widget/widget-views.ts';
import { widgetHistoryQuery } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

export function historyRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/history', { feature: 'points', query: widgetHistoryQuery, responses: { 200: answers.history } }, ({ session, query }) =>
    widgetHistory(ctx.db, session.projectId, session.externalId, query));
}
