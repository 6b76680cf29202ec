import { recordShare, shareStatus } from '../../domain/share/share.ts';
import { readJson, validate } from '../request.ts';
import { shareBody } from '../../schemas/share.ts';
import type { WidgetApi } from './api.ts';

/** What sharing pays and whether the member may share now; a share the widget reports is paid within the limits. */
export function shareRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/social-share', 'share', (_event, { session, now }) => shareStatus(ctx.db, session.projectId, session.externalId, now));

  route('POST', '/social-share', 'share', async (event, { session, now }) => {
    const body = validate(shareBody, await readJson(event));
    return ctx.write(() => recordShare(ctx.db, session.projectId, session.externalId, body, 'widget', now));
  });
}
