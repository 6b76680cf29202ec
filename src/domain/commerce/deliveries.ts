import type { Db } from '../../db/connection.ts';
import { validate } from '../../shared/validate.ts';
import { syncCustomer } from './customers.ts';
import { applyOrder } from './orders.ts';
import { customerPayload, orderPayload } from './payloads.ts';
import { storeSettings, type StoreRow } from './stores.ts';

export interface DeliveryOutcome {
  received: true;
  /** What the delivery did, in a few words (WooCommerce shows the answer in its webhook log). */
  outcome: string;
}

/**
 * A signed delivery from the store, routed on X-WC-Webhook-Topic. Topics Punchcard did not
 * register are answered 200 and ignored, so the store never disables the webhook over them.
 */
export function receiveDelivery(db: Db, store: StoreRow, topic: string, payload: unknown, now: Date): DeliveryOutcome {
  const settings = storeSettings(store);
  switch (topic) {
    case 'order.updated':
    case 'order.created':
      return { received: true, outcome: `order ${applyOrder(db, store, settings, validate(orderPayload, payload), now)}` };
    case 'customer.created':
    case 'customer.updated':
      return { received: true, outcome: syncCustomer(db, store, settings, validate(customerPayload, payload), now) };
    default:
      return { received: true, outcome: `ignored topic ${topic.slice(0, 40) || '(none)'}` };
  }
}
