import { createHmac } from 'node:crypto';
import type { Db } from '../../db/connection.ts';
import { AppError } from '../../shared/errors.ts';
import { constantTimeEqual, type SecretBox } from '../../shared/secrets.ts';
import { settingsByGuild, type CommunitySettings } from '../../domain/community/settings.ts';

/** Deliveries older or newer than this are refused: a captured request cannot be sent again later. */
export const COMMUNITY_TIMESTAMP_WINDOW_MS = 5 * 60 * 1000;

/** The X-Community-Signature of a body: lowercase hex HMAC-SHA256 keyed with the webhook secret. */
export const communitySignature = (secret: string, raw: string) => createHmac('sha256', secret).update(raw, 'utf8').digest('hex');

const unauthorized = (message: string) => new AppError(401, 'Unauthorized', message);

/** Opened webhook secrets by their sealed form: a busy guild's every delivery would otherwise decrypt the same secret. Rotation seals a new one. */
const openedSecrets = new Map<string, string>();
const MAX_OPENED_SECRETS = 1000;

function openSecret(box: SecretBox, sealed: string): string {
  let secret = openedSecrets.get(sealed);
  if (secret === undefined) {
    secret = box.open(sealed);
    if (openedSecrets.size >= MAX_OPENED_SECRETS) openedSecrets.clear();
    openedSecrets.set(sealed, secret);
  }
  return secret;
}

/** X-Community-Timestamp: Unix time in seconds (milliseconds are accepted too: values past 10^12). */
export function timestampMs(header: string | null): number | undefined {
  if (header === null || !/^\d{1,16}$/.test(header.trim())) return undefined;
  const value = Number(header.trim());
  return value >= 1e12 ? value : value * 1000;
}

export interface DeliveryHeaders {
  guildId: string | null;
  signature: string | null;
  timestamp: string | null;
}

/** The project a delivery claims to be for, from its guild header; undefined when no project has that guild. */
export const deliveryProject = (db: Db, guildId: string | null): CommunitySettings | undefined =>
  guildId === null || guildId.length > 100 ? undefined : settingsByGuild(db, guildId);

/**
 * Checks a community delivery of the project its guild header named, before its body is read: a
 * fresh timestamp (5 minutes either way) and the signature over the raw body, compared in
 * constant time. 401 otherwise.
 */
export function verifyDelivery(box: SecretBox, settings: CommunitySettings, headers: Omit<DeliveryHeaders, 'guildId'>, raw: string, now: Date): void {
  if (settings.webhookSecret === null) throw unauthorized('X-Community-Guild-Id names no guild configured here.');
  const at = timestampMs(headers.timestamp);
  if (at === undefined) throw unauthorized('X-Community-Timestamp must be the Unix time of sending, in seconds.');
  if (Math.abs(now.getTime() - at) > COMMUNITY_TIMESTAMP_WINDOW_MS) {
    throw unauthorized('X-Community-Timestamp is more than 5 minutes from the server\'s time: check the sender\'s clock.');
  }
  if (headers.signature === null) throw unauthorized('Missing X-Community-Signature header.');
  const expected = communitySignature(openSecret(box, settings.webhookSecret), raw);
  if (!constantTimeEqual(headers.signature.trim(), expected)) {
    throw unauthorized('X-Community-Signature does not match: sign the raw body with the webhook secret (lowercase hex HMAC-SHA256).');
  }
}

/** The project of a delivery's X-Community-Guild-Id: 401 when no project configured that guild (or its secret). */
export function requireDeliveryProject(db: Db, guildId: string | null): CommunitySettings {
  if (guildId === null) throw unauthorized('Missing X-Community-Guild-Id header.');
  const settings = deliveryProject(db, guildId);
  if (!settings || settings.webhookSecret === null) throw unauthorized('X-Community-Guild-Id names no guild configured here.');
  return settings;
}

/** The eventId and type a refused body names, for the log (best effort: the body may not be JSON at all). */
export function namedInBody(raw: string): { eventId: string | null; eventType: string | null; communityUserId: string | null } {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = null;
  }
  const field = (name: string) => {
    const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
    return typeof value === 'string' && value.length <= 100 ? value : null;
  };
  return { eventId: field('eventId'), eventType: field('eventType'), communityUserId: field('communityUserId') };
}
