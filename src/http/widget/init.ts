import { initWidgetMember } from '../../domain/widget.ts';
import { readJson, validate } from '../request.ts';
import { widgetInitBody } from '../schemas/widget.ts';
import type { WidgetApi } from './api.ts';

export function initRoutes({ route, ctx }: WidgetApi): void {
  route('POST', '/init', null, async (event, { session, config, now }) => {
    validate(widgetInitBody, await readJson(event, { emptyAllowed: true }));
    return ctx.write(() => initWidgetMember(ctx.db, session.projectId, config, session.externalId, session.member, now));
  });
}
