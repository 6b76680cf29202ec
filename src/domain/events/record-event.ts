import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { newId } from '../../shared/ids.ts';
import { projectContext } from '../project/project-context.ts';

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

const listeners = new WeakMap<Db, (webhookIds: readonly string[]) => void>();

/**
 * Registers the one thing told when emit() enqueues on this connection (and for which webhooks):
 * the delivery runner's wake-up. It is called inside the transaction; the runner's claim is a later write, so it runs
 * after the COMMIT (and finds nothing if the change rolled back).
 */
export function onEnqueue(db: Db, listener: (webhookIds: readonly string[]) => void): void {
  listeners.set(db, listener);
}

/**
 * Records that `type` happened, for every active webhook of the project subscribed to it: one
 * event row and one pending delivery per webhook. Call it inside the transaction of the change it
 * reports (every domain function runs in one), so the event commits or rolls back with it; the
 * job runner delivers after the commit. An event no webhook subscribes to writes nothing, and the
 * subscriptions come from the project's cached context, so such a change reads nothing either; a
 * webhook subscribed later receives only what happens after it (docs/webhooks.md).
 */
export function emit(db: Db, projectId: string, type: EventType, data: Record<string, unknown>, now: Date): void {
  const subscribed = projectContext(db, projectId).subscribers.get(type);
  if (!subscribed) return;
  const createdAt = now.toISOString();
  const { lastInsertRowid: eventId } = stmt(db, 'INSERT INTO events (public_id, project_id, type, data, created_at) VALUES (?, ?, ?, ?, ?)')
    .run(newId('evt'), projectId, type, JSON.stringify(data), createdAt);
  const enqueue = stmt(db, `INSERT INTO webhook_deliveries (public_id, project_id, webhook_id, event_id, run_at, created_at)
    VALUES (?, ?, ?, ?, ?, ?)`);
  for (const webhookId of subscribed) enqueue.run(newId('dlv'), projectId, webhookId, eventId, createdAt, createdAt);
  listeners.get(db)?.(subscribed);
}
