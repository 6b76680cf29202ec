import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { newId } from '../../shared/ids.ts';

/** Every event a webhook can subscribe to. */
export const EVENT_TYPES = [
  'member.created',
  'member.updated',
  'points.awarded',
  'points.deducted',
  'badge.awarded',
  'quest.completed',
  'referral.converted',
  'promo.redeemed',
  'reward.redeemed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

const listeners = new WeakMap<Db, (webhookIds: string[]) => void>();

/**
 * Registers the one thing told when emit() enqueues on this connection (and for which webhooks):
 * the delivery runner's wake-up. It is called inside the transaction; the runner's claim is a later write, so it runs
 * after the COMMIT (and finds nothing if the change rolled back).
 */
export function onEnqueue(db: Db, listener: (webhookIds: string[]) => void): void {
  listeners.set(db, listener);
}

/**
 * Records that `type` happened, for every active webhook of the project subscribed to it: one
 * event row and one pending delivery per webhook. Call it inside the transaction of the change it
 * reports (every domain function runs in one), so the event commits or rolls back with it; the
 * job runner delivers after the commit. With no subscriber nothing is written, so a project
 * without webhooks pays one indexed read per change.
 */
export function emit(db: Db, projectId: string, type: EventType, data: Record<string, unknown>, now: Date): void {
  const subscribed = stmt<{ id: string; events: string }>(db, 'SELECT id, events FROM webhooks WHERE project_id = ? AND is_active = 1')
    .all(projectId)
    .filter((webhook) => (JSON.parse(webhook.events) as string[]).includes(type));
  if (subscribed.length === 0) return;
  const createdAt = now.toISOString();
  const { lastInsertRowid: eventId } = stmt(db, 'INSERT INTO events (public_id, project_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(newId('evt'), projectId, type, JSON.stringify(data), createdAt);
  const enqueue = stmt(db, `INSERT INTO webhook_deliveries (public_id, project_id, webhook_id, event_id, run_at, created_at)
    VALUES (?, ?, ?, ?, ?, ?)`);
  for (const webhook of subscribed) enqueue.run(newId('dlv'), projectId, webhook.id, eventId, createdAt, createdAt);
  listeners.get(db)?.(subscribed.map((webhook) => webhook.id));
}
