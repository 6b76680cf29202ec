import { createHmac, timingSafeEqual } from 'node:crypto';

/** Headers as Node (IncomingHttpHeaders), fetch (Headers) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/** A delivery's body: the event, whatever its type (the OpenAPI document's `webhooks` lists each `data`). */
export interface WebhookEvent {
  id: string;
  type: string;
  timestamp: string;
  signature: string;
  data: Record<string, unknown>;
}

export class WebhookVerificationError extends Error {
  override name = 'WebhookVerificationError';
}

/** How far webhook-timestamp may be from now: a replayed old delivery is refused. */
const TOLERANCE_SECONDS = 5 * 60;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name)?.[1];
  return Array.isArray(entry) ? entry[0] : entry;
}

const same = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/**
 * Checks a delivery was signed with the webhook's secret (`whsec_…`) and returns its event. Both
 * schemes Punchcard sends are understood: X-Punchcard-Signature (`sha256=` hex HMAC of the raw
 * body, keyed with the whole secret) and the Standard Webhooks headers (webhook-id,
 * webhook-timestamp within 5 minutes, webhook-signature `v1,<base64>`); each one present must
 * hold, and at least one must be. Pass the body exactly as received (before any JSON parsing).
 */
export function verifyWebhook(headers: WebhookHeaders, rawBody: string | Buffer, secret: string, now = Date.now()): WebhookEvent {
  const body = typeof rawBody === 'string' ? rawBody : rawBody.toString('utf8');
  const ours = header(headers, 'x-punchcard-signature');
  const standard = header(headers, 'webhook-signature');
  if (ours === undefined && standard === undefined) throw new WebhookVerificationError('No X-Punchcard-Signature or webhook-signature header.');
  if (ours !== undefined && !same(ours, `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`)) {
    throw new WebhookVerificationError('X-Punchcard-Signature does not match the body.');
  }
  if (standard !== undefined) {
    const id = header(headers, 'webhook-id');
    const timestamp = header(headers, 'webhook-timestamp');
    if (!id || !timestamp || !/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-id or webhook-timestamp is missing.');
    if (Math.abs(now / 1000 - Number(timestamp)) > TOLERANCE_SECONDS) throw new WebhookVerificationError('webhook-timestamp is too far from now.');
    const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
    const expected = `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
    if (!standard.split(' ').some((signature) => same(signature, expected))) throw new WebhookVerificationError('webhook-signature does not match the body.');
  }
  return JSON.parse(body) as WebhookEvent;
}
