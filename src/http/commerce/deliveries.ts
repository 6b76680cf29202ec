import { receiveDelivery } from '../../domain/commerce/deliveries.ts';
import { verifyDelivery } from '../../integrations/commerce/signature.ts';
import { deliveryAnswer } from '../../schemas/commerce.ts';
import { parseJson } from '../request.ts';
import type { DeliveryApi } from './api.ts';

export function deliveryRoutes({ route, ctx }: DeliveryApi): void {
  // The signature is checked over the bytes as received, then the body is parsed; one transaction per delivery.
  route('POST', '/webhooks/:storeId', { rawBody: true, write: true, responses: { 200: deliveryAnswer } }, ({ event, raw, param, now }) => {
    const headers = { signature: event.req.headers.get('x-wc-webhook-signature'), contentType: event.req.headers.get('content-type') };
    // A wrong signature spends the address's failed-check budget, as a wrong key does.
    const sender = ctx.guard.authAttempt(event, () => verifyDelivery(ctx.db, ctx.box, param('storeId'), raw, headers));
    if (sender === 'ping') return { received: true, outcome: 'ping' };
    const topic = event.req.headers.get('x-wc-webhook-topic') ?? '';
    return receiveDelivery(ctx.db, sender, topic, parseJson(raw, 'The delivery'), now);
  });
}
