import { recordShare, shareStatus } from '../../domain/share/share.ts';
import { emptyBody } from '../../schemas/common.ts';
import { shareBody } from '../../schemas/share.ts';
import type { ServerApi } from './api.ts';
import * as answers from '../../schemas/answers/server.ts';

/** A member's social shares (operators, tests); the widget calls the same functions. */
export function shareRoutes({ route, ctx }: ServerApi): void {
  route('GET', '/members/:externalId/social-share', { query: emptyBody, responses: { 200: answers.shareStatus } }, ({ key, param, now }) =>
    shareStatus(ctx.db, key.projectId, param('externalId'), now));

  route('POST', '/members/:externalId/social-share', { body: shareBody, write: true, forShopper: true, responses: { 200: answers.shareResult } }, ({ key, body, param, now }) =>
    recordShare(ctx.db, key.projectId, param('externalId'), body, key.prefix, now));
}
