import { initAnswer, initNeedsWrite, initWidgetMember } from '../../domain/widget/widget-views.ts';
import { readJson, validate } from '../request.ts';
import { widgetInitBody } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';

export function initRoutes({ route, ctx }: WidgetApi): void {
  route('POST', '/init', null, async (event, { session, config, now }) => {
    validate(widgetInitBody, await readJson(event, { emptyAllowed: true }));
    const { projectId, externalId, member } = session;
    if (!initNeedsWrite(ctx.db, projectId, externalId, member)) return initAnswer(ctx.db, projectId, config, externalId, now);
    return ctx.write(() => initWidgetMember(ctx.db, projectId, config, externalId, member, now));
  });
}
