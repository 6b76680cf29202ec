import { memberLink } from '../../domain/community/links.ts';
import { communitySettings } from '../../domain/community/settings.ts';
import { findMember } from '../../domain/members/members.ts';
import { communityWidgetAnswer } from '../../schemas/community.ts';
import type { WidgetApi } from '../widget/api.ts';
import { authorizeUrl } from './auth.ts';

/**
 * GET /api/widget/community: what the widget's "link your Discord" shows. `available` is false
 * until the project set its guild and OAuth client; `url` is the authorize URL to open (a fresh
 * signed state each time) while the member has not linked.
 */
export function communityWidgetRoutes({ route, ctx }: WidgetApi): void {
  route('GET', '/community', { responses: { 200: communityWidgetAnswer } }, ({ session, now }) => {
    const settings = communitySettings(ctx.db, session.projectId);
    if (settings.guildId === null || settings.oauthClientId === null || settings.oauthClientSecret === null) {
      return { available: false, linked: false, username: null, url: null };
    }
    const member = findMember(ctx.db, session.projectId, session.externalId);
    const link = member ? memberLink(ctx.db, session.projectId, member.id) : null;
    if (link) return { available: true, linked: true, username: link.username, url: null };
    return { available: true, linked: false, username: null, url: authorizeUrl(ctx, session.projectId, session.externalId, now).url };
  });
}
