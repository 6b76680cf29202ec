import { recordShare, shareStatus } from '../../domain/share/share.ts';
import { multiplierNow, shareAvailability } from '../../domain/widget/widget-availability.ts';
import { readJson, validate } from '../request.ts';
import { shareBody } from '../../schemas/share.ts';
import type { WidgetApi } from './api.ts';

/**
 * What sharing pays (base and the multiplier now) and whether the member may share now, with why
 * not and until when; a share the widget reports is paid within the limits.
 */
export function shareRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/social-share', 'share', (_event, { session, now }) => {
    const status = shareStatus(ctx.db, session.projectId, session.externalId, now);
    return {
      ...status,
      multiplier: multiplierNow(ctx.db, session.projectId, now, 'share'),
      availability: shareAvailability(ctx.db, session.projectId, status, now),
    };
  });

  route('POST', '/social-share', 'share', async (event, { session, now }) => {
    const body = validate(shareBody, await readJson(event));
    return ctx.write(() => recordShare(ctx.db, session.projectId, session.externalId, body, 'widget', now));
  });
}
