import { randomBytes } from 'node:crypto';
import type { Db } from '../db/connection.ts';
import { cachedRowsChanged } from '../db/cache-version.ts';
import { stmt } from '../db/statements.ts';
import { atomically } from '../db/transaction.ts';
import { conflict, notFound } from '../shared/errors.ts';
import { newId } from '../shared/ids.ts';
import { countFailedSince, dropOrphanEvents, resendFailedSince } from './deliveries.ts';
import type { EventType } from '../domain/events/record-event.ts';
import type { SecretBox } from '../shared/secrets.ts';
import type { OutgoingEvent } from './signing.ts';

interface WebhookRow {
  id: string;
  project_id: string;
  url: string;
  events: string;
  secret: string;
  is_active: number;
  failed_at: string | null;
  failing_since: string | null;
  last_error: string | null;
  created_at: string;
}

/** active: delivering; failing: active, nothing has succeeded since `failingSince`; disabled: by sustained failure; paused: by the shop. */
export type WebhookState = 'active' | 'failing' | 'disabled' | 'paused';

/** A webhook as the server API shows it (never its secret). */
export interface Webhook {
  id: string;
  url: string;
  events: EventType[];
  isActive: boolean;
  state: WebhookState;
  createdAt: string;
  /** When its current failure streak began (the last success before it, if any, was earlier); null while healthy. */
  failingSince: string | null;
  /** When it was disabled for sustained failure (or a 410 Gone); null once re-enabled. */
  failedAt: string | null;
  /** Why it was disabled: a classified reason (`http_503`, `timeout`...), never what the receiver sent. */
  lastError: string | null;
}

/** Bounds the work one change can cause: emit() writes one delivery per subscribed webhook. */
export const MAX_WEBHOOKS_PER_PROJECT = 20;

const toWebhook = (row: WebhookRow): Webhook => ({
  id: row.id,
  url: row.url,
  events: JSON.parse(row.events) as EventType[],
  isActive: row.is_active === 1,
  state: row.is_active === 1 ? (row.failing_since ? 'failing' : 'active') : row.failed_at ? 'disabled' : 'paused',
  createdAt: row.created_at,
  failingSince: row.failing_since,
  failedAt: row.failed_at,
  lastError: row.last_error,
});

const WEBHOOK_SELECT = 'SELECT id, project_id, url, events, secret, is_active, failed_at, failing_since, last_error, created_at FROM webhooks';

/**
 * A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. Receivers' libraries
 * base64-decode the part after the prefix to get the HMAC key.
 */
export const newWebhookSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export function requireWebhook(db: Db, projectId: string, webhookId: string): WebhookRow {
  const row = stmt<WebhookRow>(db, `${WEBHOOK_SELECT} WHERE id = ? AND project_id = ?`).get(webhookId, projectId);
  if (!row) throw notFound(`No webhook with id "${webhookId}" in this project`);
  return row;
}

export const webhookView = (db: Db, projectId: string, webhookId: string) => toWebhook(requireWebhook(db, projectId, webhookId));

/** The webhook's signing secret, decrypted. */
export const webhookSecret = (box: SecretBox, row: { secret: string }) => box.open(row.secret);

export function listWebhooks(db: Db, projectId: string): { webhooks: Webhook[] } {
  return { webhooks: stmt<WebhookRow>(db, `${WEBHOOK_SELECT} WHERE project_id = ? ORDER BY created_at, id`).all(projectId).map(toWebhook) };
}

/** Subscriptions are stored once each, in the order given. */
const uniqueEvents = (events: EventType[]) => JSON.stringify([...new Set(events)]);

export function createWebhook(
  db: Db,
  box: SecretBox,
  projectId: string,
  input: { url: string; events: EventType[] },
  now: Date,
): Webhook & { secret: string } {
  return atomically(db, () => {
    const count = stmt<number>(db, 'SELECT count(*) FROM webhooks WHERE project_id = ?').pluck().get(projectId)!;
    if (count >= MAX_WEBHOOKS_PER_PROJECT) throw conflict(`A project can have at most ${MAX_WEBHOOKS_PER_PROJECT} webhooks; delete one first.`);
    const id = newId('whk');
    const secret = newWebhookSecret();
    stmt(db, `INSERT INTO webhooks (id, project_id, url, events, secret, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(id, projectId, input.url, uniqueEvents(input.events), box.seal(secret), now.toISOString(), now.toISOString());
    cachedRowsChanged(db); // emit() reads the subscriptions from the project's cached context
    return { ...webhookView(db, projectId, id), secret };
  });
}

export interface WebhookChanges {
  url?: string | undefined;
  events?: EventType[] | undefined;
  /** true re-enables a failed or paused webhook: its held deliveries resume and it is sent new events again. */
  isActive?: boolean | undefined;
  /** With isActive true: also send again the deliveries that died while it was failing. */
  resendFailed?: boolean | undefined;
}

/** What re-enabling found: the deliveries that died while the webhook was failing, and how many were resent. */
export interface Reenabled {
  failedWhileDown?: { since: string; deliveries: number; resent: number };
}

export function updateWebhook(db: Db, projectId: string, webhookId: string, changes: WebhookChanges, now: Date): Webhook & Reenabled {
  return atomically(db, () => {
    const row = requireWebhook(db, projectId, webhookId);
    const isActive = changes.isActive ?? row.is_active === 1;
    const reenabled = changes.isActive === true;
    // The failure window, read before re-enabling clears it: what died in it may be sent again.
    const since = reenabled ? row.failing_since : null;
    const deliveries = since ? countFailedSince(db, projectId, row.id, since) : 0;
    const resent = since && changes.resendFailed ? resendFailedSince(db, projectId, row.id, since, now) : 0;
    stmt(db, `UPDATE webhooks SET url = ?, events = ?, is_active = ?, failed_at = ?, last_error = ?, failing_since = ?,
      failed_deliveries = CASE WHEN ? THEN 0 ELSE failed_deliveries END, updated_at = ? WHERE id = ?`).run(
      changes.url ?? row.url,
      changes.events ? uniqueEvents(changes.events) : row.events,
      isActive ? 1 : 0,
      reenabled ? null : row.failed_at,
      reenabled ? null : row.last_error,
      reenabled ? null : row.failing_since,
      reenabled ? 1 : 0,
      now.toISOString(),
      row.id,
    );
    cachedRowsChanged(db);
    const view = webhookView(db, projectId, webhookId);
    return since ? { ...view, failedWhileDown: { since, deliveries, resent } } : view;
  });
}

/** Re-enables a webhook by id alone (the operator's CLI, which knows no project). */
export function enableWebhook(db: Db, webhookId: string, now: Date, options: { resendFailed?: boolean } = {}): Webhook & Reenabled {
  return updateWebhook(db, webhookProject(db, webhookId), webhookId, { isActive: true, resendFailed: options.resendFailed }, now);
}

export function webhookProject(db: Db, webhookId: string): string {
  const projectId = stmt<string>(db, 'SELECT project_id FROM webhooks WHERE id = ?').pluck().get(webhookId);
  if (projectId === undefined) throw notFound(`No webhook with id "${webhookId}"`);
  return projectId;
}

/** A new secret, effective for every delivery from now on (including retries); shown only here. */
export function rotateWebhookSecret(db: Db, box: SecretBox, projectId: string, webhookId: string, now: Date): { id: string; secret: string } {
  return atomically(db, () => {
    const row = requireWebhook(db, projectId, webhookId);
    const secret = newWebhookSecret();
    stmt(db, 'UPDATE webhooks SET secret = ?, updated_at = ? WHERE id = ?').run(box.seal(secret), now.toISOString(), row.id);
    return { id: row.id, secret };
  });
}

/** Deletes the webhook with its deliveries, and the events no other webhook still needs. */
export function deleteWebhook(db: Db, projectId: string, webhookId: string): { success: true; deleted: string } {
  return atomically(db, () => {
    const row = requireWebhook(db, projectId, webhookId);
    const eventIds = stmt<number>(db, 'SELECT DISTINCT event_id FROM webhook_deliveries WHERE webhook_id = ?').pluck().all(row.id);
    stmt(db, 'DELETE FROM webhook_deliveries WHERE webhook_id = ?').run(row.id);
    stmt(db, 'DELETE FROM webhooks WHERE id = ?').run(row.id);
    cachedRowsChanged(db);
    dropOrphanEvents(db, eventIds);
    return { success: true, deleted: row.id };
  });
}

/** The test operation's event: `webhook.test` with the webhook's id, never stored. */
export const testEvent = (webhookId: string, now: Date): OutgoingEvent => ({
  id: newId('evt'),
  type: 'webhook.test',
  timestamp: now.toISOString(),
  dataJson: JSON.stringify({ webhookId }),
});
