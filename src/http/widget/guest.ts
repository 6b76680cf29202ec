import type { H3, H3Event } from 'h3';
import * as v from 'valibot';
import { widgetProjectConfig } from '../../domain/widget/widget-config.ts';
import { guestProject, guestView } from '../../domain/widget/widget-guest.ts';
import { widgetLanguage } from '../../domain/widget/widget-language.ts';
import type { AppContext } from '../context.ts';
import { errorResponse, refuseOtherMethods } from '../errors.ts';
import { readQuery } from '../request.ts';
import { corsHeaders, errorCors, WIDGET_BASE } from './api.ts';

const guestQuery = v.strictObject({
  publicKey: v.pipe(v.string('must be the publishable key (pk_live_…)'), v.minLength(1, 'must not be empty'), v.maxLength(200, 'must be at most 200 characters')),
  /** The visitor's language wishes, comma-separated: the answer carries the strings of the one picked, as init's does. */
  languages: v.optional(v.pipe(v.string('must be language codes separated by commas'), v.maxLength(400, 'must be at most 400 characters'))),
});

/**
 * GET /api/widget/guest?publicKey=pk_…: the programme for visitors who are not signed in, from
 * the publishable key alone. Public and read-only; the address limit applies (as to every public
 * path), a wrong key spends the address's failed-check budget, and only allowed origins may read it.
 */
export function mountGuestRoute(app: H3, ctx: AppContext): void {
  const path = `${WIDGET_BASE}/guest`;
  app.get(path, (event: H3Event) => {
    let cors = errorCors(event);
    try {
      const { publicKey, languages } = readQuery(event, guestQuery);
      const now = ctx.clock();
      const projectId = ctx.guard.authAttempt(event, () => guestProject(ctx.db, publicKey, now));
      const config = widgetProjectConfig(ctx.db, projectId);
      cors = corsHeaders(event, projectId, config.widgetSettings.allowedOrigins);
      for (const [name, value] of Object.entries(cors)) event.res.headers.set(name, value);
      const view = guestView(ctx.db, projectId, config, now);
      return languages === undefined ? view : { ...view, ...widgetLanguage(languages.split(',').slice(0, 10), config.widgetSettings) };
    } catch (error) {
      const response = errorResponse(error, ctx.log);
      for (const [name, value] of Object.entries(cors)) response.headers.set(name, value);
      return response;
    }
  });
  refuseOtherMethods(app, path, ['GET', 'OPTIONS']);
}
