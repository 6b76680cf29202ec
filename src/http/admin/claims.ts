import * as v from 'valibot';
import { claimListing, claimsPage, drawRaffle, fulfilClaim } from '../../domain/rewards/claims.ts';
import { claimFilter, drawBody, fulfilBody } from '../../schemas/admin.ts';
import * as admin from '../../schemas/answers/admin.ts';
import type { ProjectApi } from './api.ts';
import { listAnswer, listFields } from './lists.ts';

const CLAIM_COLUMNS = ['id', 'createdAt', 'status', 'reward.id', 'reward.name', 'reward.type', 'member.externalId', 'pointsSpent', 'couponCode', 'fulfilledAt'];

/** Claims: pending and fulfilled, marking one fulfilled (its note goes to the audit log), raffle draws. */
export function claimRoutes({ route, ctx }: ProjectApi): void {
  route('GET', '/claims', { query: v.strictObject({ ...claimFilter, ...listFields }), csv: true, responses: { 200: admin.claimList } }, ({ projectId, query }) =>
    listAnswer(query, {
      key: 'claims', columns: CLAIM_COLUMNS,
      page: (limit, offset) => {
        const { claims, pagination } = claimsPage(ctx.db, projectId, { group: query.status, rewardId: query.rewardId, limit, offset });
        return { items: claims, pagination };
      },
    }));

  route('POST', '/claims/:claimId/fulfil', { body: fulfilBody, write: true, role: 'staff', responses: { 200: admin.claimListing } }, ({ projectId, param, now }) => {
    fulfilClaim(ctx.db, projectId, param('claimId'), 'DELIVERED', now);
    return claimListing(ctx.db, projectId, param('claimId'));
  });

  route('POST', '/rewards/:rewardId/draw', { body: drawBody, write: true, role: 'staff', responses: { 200: admin.raffleDrawn } }, ({ projectId, body, param, now }) =>
    drawRaffle(ctx.db, projectId, param('rewardId'), body.winners, now));
}
