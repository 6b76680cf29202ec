import { widgetLanguage } from '../../domain/widget/widget-language.ts';
import { guestView } from '../../domain/widget/widget-guest.ts';
import { guestQuery } from '../../schemas/widget.ts';
import type { GuestApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

/** The programme for visitors who are not signed in: public and read-only (guestSurface); in the visitor's language when they name theirs. */
export function guestRoutes({ route, ctx }: GuestApi): void {
  route('GET', '/guest', { query: guestQuery, responses: { 200: answers.guest } }, ({ projectId, config, now, query }) => {
    const view = guestView(ctx.db, projectId, config, now);
    return query.languages === undefined ? view : { ...view, ...widgetLanguage(query.languages.split(',').slice(0, 10), config.widgetSettings) };
  });
}
