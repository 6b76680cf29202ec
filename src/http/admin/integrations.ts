import { connectedStores } from '../../domain/commerce/stores.ts';
import { linkedMemberCount } from '../../domain/community/links.ts';
import { communitySettings } from '../../domain/community/settings.ts';
import * as admin from '../../schemas/answers/admin.ts';
import { adminSettings, type ProjectApi } from './api.ts';

/** WooCommerce and Discord as they stand: connected, configured, running; never a credential or secret. */
export function integrationRoutes({ route, ctx }: ProjectApi): void {
  route('GET', '/integrations', { responses: { 200: admin.integrations } }, ({ projectId }) => {
    const community = communitySettings(ctx.db, projectId);
    return {
      commerce: { stores: connectedStores(ctx.db, projectId) },
      community: {
        configured: community.guildId !== null && community.webhookSecret !== null,
        guildId: community.guildId,
        botRunning: adminSettings(ctx).botRunning(),
        linkedMembers: linkedMemberCount(ctx.db, projectId),
      },
    };
  });
}
