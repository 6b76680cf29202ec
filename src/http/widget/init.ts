import { widgetLanguage } from '../../domain/widget/widget-language.ts';
import { startWidget } from '../../domain/widget/widget-views.ts';
import { widgetInitBody } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

/**
 * The widget's start. It writes only when it must (a first visit, changed profile fields), and a
 * repeated init changes nothing more, so it takes no Idempotency-Key; with a ticket its answer
 * carries a session token, which is never stored. Given the visitor's `languages`, it also answers
 * with the strings of the one it picked, so the widget renders after this one call.
 */
export function initRoutes({ route, ctx }: WidgetApi): void {
  route('POST', '/init', { body: widgetInitBody, optionalBody: true, responses: { 200: answers.init } }, async ({ session, config, now, body }) => {
    const answer = await startWidget(ctx.db, ctx.box, ctx.write, session, config, now);
    return body.languages ? { ...answer, ...widgetLanguage(body.languages, config.widgetSettings) } : answer;
  });
}
