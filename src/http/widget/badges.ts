import { memberBadgeBoard } from '../../domain/badges/member-badges.ts';
import type { WidgetApi } from './api.ts';

/** The member's badges: earned (with awardedAt) and still to earn. */
export function badgeRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/badges', { feature: 'badges' }, ({ session }) => memberBadgeBoard(ctx.db, session.projectId, session.externalId));
}
