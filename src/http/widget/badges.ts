import { memberBadgeBoard } from '../../domain/badges/member-badges.ts';
import type { WidgetApi } from './api.ts';
import * as answers from '../../schemas/answers/widget.ts';

/** The member's badges: earned (with awardedAt) and still to earn. */
export function badgeRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/badges', { feature: 'badges', responses: { 200: answers.badges } }, ({ session }) => memberBadgeBoard(ctx.db, session.projectId, session.externalId));
}
