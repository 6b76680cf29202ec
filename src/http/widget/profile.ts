import { requireMember } from '../../domain/members/members.ts';
import { toWidgetProfile, updateWidgetProfile } from '../../domain/widget/widget-views.ts';
import { readJson, validate } from '../request.ts';
import { widgetProfileBody } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';

export function profileRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/profile', null, (_event, { session }) => toWidgetProfile(requireMember(ctx.db, session.projectId, session.externalId)));

  route('PATCH', '/profile', null, async (event, { session, now }) => {
    const body = validate(widgetProfileBody, await readJson(event));
    return ctx.write(() => updateWidgetProfile(ctx.db, session.projectId, session.externalId, body, now));
  });
}
