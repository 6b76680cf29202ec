import { updateWidgetProfile, widgetProfile } from '../../domain/widget/widget-views.ts';
import { widgetProfileBody } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

export function profileRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/profile', { responses: { 200: answers.profile } }, ({ session }) => widgetProfile(ctx.db, session.projectId, session.externalId));

  route('PATCH', '/profile', { body: widgetProfileBody, write: true, responses: { 200: answers.profile } }, ({ session, body, now }) =>
    updateWidgetProfile(ctx.db, session.projectId, session.externalId, body, now));
}
