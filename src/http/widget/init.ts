import { initAnswer, initNeedsWrite, initWidgetMember, type WidgetInit } from '../../domain/widget/widget-views.ts';
import { issueWidgetSession, type IssuedSession } from '../../domain/widget/widget-session.ts';
import { widgetLanguage, type WidgetLanguage } from '../../domain/widget/widget-language.ts';
import { readJson, validate } from '../request.ts';
import { widgetInitBody } from '../../schemas/widget.ts';
import type { WidgetApi } from './api.ts';

/**
 * The widget's start. Called with a signed X-Widget-Auth ticket, it also hands out a session
 * (`session: {token, expiresAt}`) that the widget sends as `Authorization: Bearer` from then on;
 * called with a session, it answers without a new one. Given the visitor's `languages`, it also
 * answers with the strings of the one it picked, so the widget renders after this one call.
 */
export function initRoutes({ route, ctx }: WidgetApi): void {
  route('POST', '/init', null, async (event, { session, config, now }) => {
    const { languages } = validate(widgetInitBody, await readJson(event, { emptyAllowed: true }));
    const { projectId, externalId, keyId, member } = session;
    const answer: WidgetInit & Partial<WidgetLanguage> & { session?: IssuedSession } = initNeedsWrite(ctx.db, projectId, externalId, member)
      ? await ctx.write(() => initWidgetMember(ctx.db, projectId, config, externalId, member, now))
      : initAnswer(ctx.db, projectId, config, externalId, now);
    if (languages) Object.assign(answer, widgetLanguage(languages, config.widgetSettings));
    if (session.ticket) {
      answer.session = issueWidgetSession(ctx.db, ctx.box, { projectId, externalId, keyId, publicId: answer.member.id }, config.widgetSettings.sessionHours, now);
    }
    return answer;
  });
}
