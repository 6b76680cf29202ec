import { recordShare } from '../../domain/share/share.ts';
import { widgetShare } from '../../domain/widget/widget-availability.ts';
import { shareBody } from '../../schemas/share.ts';
import type { WidgetApi } from './api.ts';

/** What sharing pays and whether the member may share now; a share the widget reports is paid within the limits. */
export function shareRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/social-share', { feature: 'share' }, ({ session, now }) => widgetShare(ctx.db, session.projectId, session.externalId, now));

  route('POST', '/social-share', { feature: 'share', body: shareBody, write: true }, ({ session, body, now }) =>
    recordShare(ctx.db, session.projectId, session.externalId, body, 'widget', now));
}
