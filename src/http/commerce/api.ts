import { badRequest } from '../../shared/errors.ts';
import type { AppContext } from '../context.ts';
import { refuseUnservedMethods, type Api, type Surface } from '../route.ts';
import { serverSurface, type ServerCaller } from '../v1/api.ts';

export const COMMERCE_BASE = '/api/commerce';

/** What the plugin's routes get: the secret key's project, checked and limited as on /api/v1. */
export type CommerceApi = Api<ServerCaller, object>;

/** /api/commerce for the store's plugin: the server API's secret-key check under another prefix, with Idempotency-Keys of its own. */
export function commerceSurface(ctx: AppContext): Surface<ServerCaller, object> {
  return { ...serverSurface(ctx), name: 'commerce API', base: COMMERCE_BASE, keyScope: ({ key }) => ({ projectId: key.projectId, namespace: 'commerce API' }) };
}

/** A WooCommerce delivery carries no key: its signature, checked by the handler over the raw body, says which store sent it. */
export type DeliveryCaller = object;
export type DeliveryApi = Api<DeliveryCaller, object>;

/**
 * /api/commerce/webhooks/{storeId}: WooCommerce's deliveries. The address limit applies as to
 * every public path; Idempotency-Key means nothing here (deliveries are deduplicated by order).
 */
export function deliverySurface(_ctx: AppContext): Surface<DeliveryCaller, object> {
  return {
    name: 'commerce deliveries',
    base: COMMERCE_BASE,
    serve(event, _route, next) {
      if (event.req.headers.has('idempotency-key')) throw badRequest('Idempotency-Key is not accepted on store deliveries: orders are deduplicated by store and order id.');
      return next({});
    },
    // No project before the signature names the store; never an idempotency scope, since serve refuses Idempotency-Key.
    keyScope: () => ({ projectId: '' }),
    finish: refuseUnservedMethods,
  };
}
