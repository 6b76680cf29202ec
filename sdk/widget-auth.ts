import { createHmac } from 'node:crypto';

export interface WidgetAuthInput {
  /** The project's publishable key (pk_…). */
  publishableKey: string;
  /** The project's widget secret: keep it on the server, never in the page. */
  widgetSecret: string;
  /** The shopper's id in the shop. */
  externalId: string;
  /** Profile fields the widget may set on first visit (name, email…): signed with the rest, so the page cannot change them. */
  member?: Record<string, unknown> | string;
  /** Milliseconds since the epoch; now by default. Tickets are accepted for 5 minutes. */
  timestamp?: number;
}

/**
 * The X-Widget-Auth value for one shopper: base64 of `{publicKey, externalId, timestamp,
 * signature[, member]}`, where `signature` is the hex HMAC-SHA256, keyed with the widget secret,
 * of `publicKey:externalId:timestamp` (and `:member`, the member's JSON text, when given).
 */
export function signWidgetAuth({ publishableKey, widgetSecret, externalId, member, timestamp = Date.now() }: WidgetAuthInput): string {
  const memberText = member === undefined ? undefined : typeof member === 'string' ? member : JSON.stringify(member);
  const message = `${publishableKey}:${externalId}:${timestamp}${memberText === undefined ? '' : `:${memberText}`}`;
  const signature = createHmac('sha256', widgetSecret).update(message).digest('hex');
  const claims = { publicKey: publishableKey, externalId, timestamp, signature, ...(memberText === undefined ? {} : { member: memberText }) };
  return Buffer.from(JSON.stringify(claims)).toString('base64');
}
