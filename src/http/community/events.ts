import { AppError } from '../../shared/errors.ts';
import { validate } from '../../shared/validate.ts';
import { insertEvent, receiveCommunityEvent } from '../../domain/community/events.ts';
import { communityEventAnswer, communityEventBody } from '../../schemas/community.ts';
import { namedInBody, verifyDelivery } from '../../integrations/community/signature.ts';
import { parseJson } from '../request.ts';
import type { DeliveryApi } from './api.ts';

/**
 * POST /api/v1/community/events: the signature over the raw body first (`verify`, before any
 * Idempotency-Key lookup, which fingerprints those bytes), then the fields of the event's type;
 * limits answer 200 with their flags. A refused delivery is still written to the log (after its
 * transaction rolled back), so the shop can see why its bot's events fail.
 */
export function communityEventRoutes({ route, ctx }: DeliveryApi): void {
  route('POST', '/events', {
    rawBody: true,
    write: true,
    responses: { 200: communityEventAnswer },
    verify: ({ event, settings, raw, now }) => ctx.guard.authAttempt(event, () => verifyDelivery(ctx.box, settings, {
      signature: event.req.headers.get('x-community-signature'), timestamp: event.req.headers.get('x-community-timestamp'),
    }, raw, now)),
    async around({ settings, raw, now }, run) {
      try {
        return await run();
      } catch (error) {
        if (error instanceof AppError && error.status < 500 && error.status !== 429) {
          const named = namedInBody(raw);
          await ctx.write(() => insertEvent(ctx.db, settings.projectId, {
            ...named, memberId: null, status: error.status, outcome: 'rejected', basePoints: 0, points: 0, multiplier: 1, error: error.message.slice(0, 500),
          }, now));
        }
        throw error;
      }
    },
  }, ({ settings, raw, now }) => {
    const body = validate(communityEventBody, parseJson(raw, 'The request body'));
    const { replayed: _replayed, ...answer } = receiveCommunityEvent(ctx.db, settings, body, now);
    return answer;
  });
}
