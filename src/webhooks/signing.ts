import { createHmac } from 'node:crypto';

export interface OutgoingEvent {
  /** The event's public id (evt_…): the same on every retry and replay, for receivers to deduplicate. */
  id: string;
  type: string;
  /** When the event happened (ISO 8601); also the same on every retry. */
  timestamp: string;
  /** The `data` object as JSON text, exactly as stored. */
  dataJson: string;
}

export interface SignedMessage {
  body: string;
  headers: Record<string, string>;
}

const hmac = (key: string | Buffer, text: string) => createHmac('sha256', key).update(text);

/** `sha256=` and the hex HMAC-SHA256 of `text` keyed with the whole secret string (`whsec_…`). */
const punchcardSignature = (secret: string, text: string) => `sha256=${hmac(secret, text).digest('hex')}`;

/**
 * The request for one attempt. The body is `{id, type, timestamp, signature, data}`; its
 * `signature` field is computed over the same body without that field (the exact bytes left when
 * `"signature":"sha256=…",` is cut out of it). Headers carry:
 *   X-Punchcard-Signature: sha256=<hex HMAC-SHA256(secret string, raw body)>
 *   webhook-id / webhook-timestamp / webhook-signature: v1,<base64 HMAC-SHA256(base64-decoded
 *   secret after "whsec_", "<id>.<timestamp>.<raw body>")>, the Standard Webhooks scheme.
 * The body is identical on every attempt; only the timestamp header changes.
 */
export function signMessage(event: OutgoingEvent, secret: string, attemptAt: Date): SignedMessage {
  const head = `{"id":${JSON.stringify(event.id)},"type":${JSON.stringify(event.type)},"timestamp":${JSON.stringify(event.timestamp)},`;
  const tail = `"data":${event.dataJson}}`;
  const body = `${head}"signature":"${punchcardSignature(secret, head + tail)}",${tail}`;
  const seconds = Math.floor(attemptAt.getTime() / 1000);
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'Punchcard-Webhooks/1',
      'x-punchcard-event': event.type,
      'x-punchcard-signature': punchcardSignature(secret, body),
      'webhook-id': event.id,
      'webhook-timestamp': String(seconds),
      'webhook-signature': `v1,${hmac(key, `${event.id}.${seconds}.${body}`).digest('base64')}`,
    },
  };
}
