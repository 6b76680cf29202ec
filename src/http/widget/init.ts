import { startWidget } from '../../domain/widget/widget-views.ts';
import { widgetInitBody } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';

/**
 * The widget's start. It writes only when it must (a first visit, changed profile fields), and a
 * repeated init changes nothing more, so it takes no Idempotency-Key; with a ticket its answer
 * carries a session token, which is never stored.
 */
export function initRoutes({ route, ctx }: WidgetApi): void {
  route('POST', '/init', { body: widgetInitBody, optionalBody: true }, ({ session, config, now }) =>
    startWidget(ctx.db, ctx.box, ctx.write, session, config, now));
}
