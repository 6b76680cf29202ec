import { recordShare } from '../../domain/share/share.ts';
import { widgetShare } from '../../domain/widget/widget-availability.ts';
import { shareBody } from '../../schemas/share.ts';
import type { WidgetApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

/** What sharing pays and whether the member may share now; a share the widget reports is paid within the limits. */
export function shareRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/social-share', { feature: 'share', responses: { 200: answers.share } }, ({ session, now }) => widgetShare(ctx.db, session.projectId, session.externalId, now));

  route('POST', '/social-share', { feature: 'share', body: shareBody, write: true, responses: { 200: answers.shareResult } }, ({ session, body, now }) =>
    recordShare(ctx.db, session.projectId, session.externalId, body, 'widget', now));
}
