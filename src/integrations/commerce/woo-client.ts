import * as v from 'valibot';
import type { StoreCredentials } from '../../domain/commerce/stores.ts';
import { AppError, badRequest } from '../../shared/errors.ts';
import { isLoopbackUrl } from '../../webhooks/url-policy.ts';

/** How Punchcard talks to stores (`serve --allow-insecure-stores`, the request timeout). */
export interface CommerceSettings {
  /** Plain http to loopback stores (development and tests). */
  allowInsecure: boolean;
  /** One REST call's whole budget. */
  timeoutMs: number;
}

export const DEFAULT_STORE_TIMEOUT_MS = 10_000;

export const commerceSettings = (options: Partial<CommerceSettings> = {}): CommerceSettings => ({
  allowInsecure: options.allowInsecure ?? false,
  timeoutMs: options.timeoutMs ?? DEFAULT_STORE_TIMEOUT_MS,
});

/** Store URLs are https; plain http only to a loopback host with --allow-insecure-stores. 400 otherwise. */
export function checkSiteUrl(siteUrl: string, settings: CommerceSettings): void {
  const url = new URL(siteUrl);
  if (url.username || url.password) throw badRequest('"siteUrl" must not carry a user name or password; send the consumer key and secret instead.');
  if (url.search || url.hash) throw badRequest('"siteUrl" must be the site\'s address without a query or fragment.');
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && settings.allowInsecure && isLoopbackUrl(url)) return;
  throw badRequest(url.protocol === 'http:'
    ? '"siteUrl" must be an https URL: the consumer key and secret travel with every call (plain http only to a loopback host, with serve --allow-insecure-stores).'
    : '"siteUrl" must be an https URL.');
}

/** Our errors for a store's answers: credentials refused (400), no WooCommerce there (400), the store down or failing (502). */
const rejected = (siteUrl: string, status: number) => new AppError(400, 'store_credentials_rejected',
  `The store ${siteUrl} refused the consumer key and secret (HTTP ${status}); create a key with Read/Write permissions in WooCommerce → Settings → Advanced → REST API.`);
const notWoo = (siteUrl: string) => new AppError(400, 'store_api_not_found',
  `No WooCommerce REST API answered at ${siteUrl}/wp-json/wc/v3; check the site URL and that WooCommerce is active with pretty permalinks.`);
export const unreachable = (siteUrl: string, why: string) => new AppError(502, 'store_unreachable', `The store ${siteUrl} could not be reached: ${why}.`);

/** A store's error answer: WooCommerce's `{code, message}`. */
const wooError = v.object({ code: v.string() });

export class StoreCallError extends AppError {
  constructor(base: AppError, readonly wooCode: string | null) {
    super(base.status, base.error, base.message);
  }
}

/** One REST call to `{siteUrl}/wp-json/wc/v3{path}` with Basic auth; the JSON answer, or an AppError saying what went wrong. */
async function call(creds: StoreCredentials, settings: CommerceSettings, method: string, path: string, body?: unknown): Promise<unknown> {
  const url = `${creds.siteUrl}/wp-json/wc/v3${path}`;
  const auth = Buffer.from(`${creds.consumerKey}:${creds.consumerSecret}`).toString('base64');
  let response: Response;
  try {
    response = await fetch(url, {
      method,
      headers: { authorization: `Basic ${auth}`, accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      // A redirect would carry the key elsewhere: the store is connected at the address it answers at.
      redirect: 'manual',
      signal: AbortSignal.timeout(settings.timeoutMs),
    });
  } catch (error) {
    // The network's reason (ECONNREFUSED, a refused port), never anything the store sent.
    const reason = (error as { cause?: { code?: string; message?: string } }).cause;
    const cause = reason?.code ?? reason?.message ?? (error as Error).name;
    throw unreachable(creds.siteUrl, cause === 'TimeoutError' ? `no answer within ${settings.timeoutMs} ms` : `${cause}`);
  }
  let text: string;
  try {
    text = await response.text();
  } catch {
    throw unreachable(creds.siteUrl, 'the answer was cut off');
  }
  let json: unknown = null;
  try {
    json = text === '' ? null : JSON.parse(text);
  } catch {
    // Not JSON: judged by its status below.
  }
  if (response.status >= 300 && response.status < 400) {
    // Where it redirects is never repeated (it may be an internal address, with a query): the status says enough.
    throw new StoreCallError(new AppError(400, 'store_redirected', `The store ${creds.siteUrl} redirects ${method} ${path} (HTTP ${response.status}); connect with the address the store answers at (https, with or without www as the site uses).`), null);
  }
  if (response.ok) return json;
  const wooCode = v.is(wooError, json) ? json.code : null;
  if (response.status === 401 || response.status === 403) throw new StoreCallError(rejected(creds.siteUrl, response.status), wooCode);
  if (response.status === 404 && wooCode === 'rest_no_route') throw new StoreCallError(notWoo(creds.siteUrl), wooCode);
  if (response.status === 404 && wooCode === null) throw new StoreCallError(notWoo(creds.siteUrl), wooCode);
  const base = response.status >= 500 ? unreachable(creds.siteUrl, `it answered HTTP ${response.status}`)
    // The status only: nothing the store wrote is echoed back (the address may be one the caller cannot read otherwise).
    : new AppError(400, 'store_request_refused', `The store ${creds.siteUrl} refused ${method} ${path} (HTTP ${response.status}).`);
  throw new StoreCallError(base, wooCode);
}

/** Reads one page of webhooks: the cheapest call that needs the key's manage_woocommerce rights. */
export async function checkCredentials(creds: StoreCredentials, settings: CommerceSettings): Promise<void> {
  await call(creds, settings, 'GET', '/webhooks?per_page=1');
}

const webhookAnswer = v.object({ id: v.number(), topic: v.string() });

export async function createWebhook(creds: StoreCredentials, settings: CommerceSettings,
  hook: { name: string; topic: string; deliveryUrl: string; secret: string }): Promise<{ id: number; topic: string }> {
  const answer = await call(creds, settings, 'POST', '/webhooks', {
    name: hook.name, topic: hook.topic, delivery_url: hook.deliveryUrl, secret: hook.secret, status: 'active',
  });
  if (!v.is(webhookAnswer, answer)) throw unreachable(creds.siteUrl, 'its answer to creating a webhook had no id');
  return { id: answer.id, topic: answer.topic };
}

/** Removes a webhook; one already gone counts as removed. */
export async function deleteWebhook(creds: StoreCredentials, settings: CommerceSettings, id: number): Promise<void> {
  try {
    await call(creds, settings, 'DELETE', `/webhooks/${id}?force=true`);
  } catch (error) {
    if (error instanceof StoreCallError && error.wooCode === 'woocommerce_rest_shop_webhook_invalid_id') return;
    throw error;
  }
}

export interface CouponRequest {
  code: string;
  discountType: 'percent' | 'fixed_cart' | 'fixed_product';
  /** A decimal string, as WooCommerce takes money. */
  amount: string;
  email: string | null;
  description: string;
}

const couponAnswer = v.object({ id: v.number(), code: v.string() });

/**
 * Creates a one-use coupon. A code that already exists is the coupon an earlier attempt created
 * before its answer was lost, so it is looked up rather than failing the job forever.
 */
export async function createCoupon(creds: StoreCredentials, settings: CommerceSettings, coupon: CouponRequest): Promise<{ id: number; code: string }> {
  try {
    const answer = await call(creds, settings, 'POST', '/coupons', {
      code: coupon.code, discount_type: coupon.discountType, amount: coupon.amount, usage_limit: 1, usage_limit_per_user: 1,
      individual_use: true, description: coupon.description, ...(coupon.email ? { email_restrictions: [coupon.email] } : {}),
    });
    if (!v.is(couponAnswer, answer)) throw unreachable(creds.siteUrl, 'its answer to creating a coupon had no id');
    return answer;
  } catch (error) {
    if (!(error instanceof StoreCallError) || error.wooCode !== 'woocommerce_rest_coupon_code_already_exists') throw error;
    const found = await call(creds, settings, 'GET', `/coupons?code=${encodeURIComponent(coupon.code)}`);
    const first = Array.isArray(found) ? found[0] : undefined;
    if (!v.is(couponAnswer, first)) throw error;
    return first;
  }
}
