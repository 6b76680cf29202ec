import { guestView } from '../../domain/widget/widget-guest.ts';
import type { GuestApi } from './api.ts';

/** The programme for visitors who are not signed in: public and read-only (guestSurface). */
export function guestRoutes({ route, ctx }: GuestApi): void {
  route('GET', '/guest', {}, ({ projectId, config, now }) => guestView(ctx.db, projectId, config, now));
}
