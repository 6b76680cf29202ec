import { createHmac } from 'node:crypto';
import type { Db } from '../../db/connection.ts';
import { storeById, webhookSecretOf, type StoreRow } from '../../domain/commerce/stores.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import { constantTimeEqual, type SecretBox } from '../../shared/secrets.ts';

/** WooCommerce's ping when a webhook is created: form-encoded `webhook_id=N`, unsigned. */
const PING = /^webhook_id=\d{1,19}$/;

export interface DeliveryHeaders {
  signature: string | null;
  contentType: string | null;
}

/** WooCommerce's X-WC-Webhook-Signature: base64 of HMAC-SHA256 over the raw body, keyed with the webhook's secret. */
export const wooSignature = (body: string, secret: string) => createHmac('sha256', secret).update(body, 'utf8').digest('base64');

const unauthorized = (message: string) => new AppError(401, 'Unauthorized', message);

/**
 * Who sent a delivery: 'ping' for WooCommerce's unsigned ping (answered 200 whatever the store,
 * as it arrives while the store is being connected, before its row exists), else the connected
 * store whose secret signed the raw body (constant-time). 404 for an unknown or disconnected store, 401 for a bad signature.
 */
export function verifyDelivery(db: Db, box: SecretBox, storeId: string, raw: string, headers: DeliveryHeaders): 'ping' | StoreRow {
  if (headers.signature === null && PING.test(raw.trim()) && !/json/i.test(headers.contentType ?? '')) return 'ping';
  const store = storeById(db, storeId);
  if (!store || store.deleted_at !== null) throw notFound(`No connected store with id "${storeId}"`);
  if (headers.signature === null) throw unauthorized('The delivery has no X-WC-Webhook-Signature header.');
  if (!constantTimeEqual(headers.signature.trim(), wooSignature(raw, webhookSecretOf(box, store)))) {
    throw unauthorized('The X-WC-Webhook-Signature does not match the body: it must be the base64 HMAC-SHA256 of the raw body with the webhook secret.');
  }
  return store;
}
