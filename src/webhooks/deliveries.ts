import type { Db } from '../db/connection.ts';
import { type Page, pageOf } from '../shared/page.ts';
import { cachedRowsChanged } from '../db/cache-version.ts';
import { stmt } from '../db/statements.ts';
import { atomically } from '../db/transaction.ts';
import { addMs } from '../shared/clock.ts';
import { conflict, notFound } from '../shared/errors.ts';
import type { OutgoingEvent } from './signing.ts';

// The delivery job table's operations, one small named function each (as graphile-worker does):
// claim with a lease, record success or failure, take over leases, prune. The runner in
// src/jobs/ calls them through the group committer; the CLI calls them directly.

/** Attempts per delivery, and the wait before attempts 2, 3, 4 and 5 after a failure. */
export const MAX_ATTEMPTS = 5;
export const RETRY_DELAYS_MS = [60_000, 5 * 60_000, 30 * 60_000, 2 * 60 * 60_000] as const;

/** The defaults, as doctor states them (the CLI cannot know a running server's flags). */
export const RETENTION_NOTE = 'Retention: delivered rows 7 days (serve --webhook-retention), dead rows 30 days (--webhook-dead-retention), '
  + 'with their events; a webhook is disabled after 5 days without a success (--webhook-disable-after).';

export type DeliveryStatus = 'pending' | 'delivered' | 'dead';

export interface ClaimedDelivery {
  id: number;
  publicId: string;
  webhookId: string;
  /** Attempts made before this one. */
  attempts: number;
  url: string;
  sealedSecret: string;
  event: OutgoingEvent;
}

interface ClaimRow {
  id: number;
  public_id: string;
  webhook_id: string;
  attempts: number;
  url: string;
  secret: string;
  event_public_id: string;
  type: string;
  data: string;
  created_at: string;
}

const CLAIM_SELECT = `SELECT d.id, d.public_id, d.webhook_id, d.attempts, w.url, w.secret,
    e.public_id AS event_public_id, e.type, e.data, e.created_at
  FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN events e ON e.id = d.event_id
  WHERE d.status = 'pending' AND d.run_at <= ? AND w.is_active = 1`;

/**
 * The statements the runner runs on the write path, each through webhook_deliveries_webhook_due
 * (one endpoint's waiting rows, by due time), so their cost never grows with the backlog. A test
 * checks their query plans.
 */
export const CLAIM_PLANS = {
  dueCount: `SELECT count(*) FROM (SELECT 1 FROM webhook_deliveries INDEXED BY webhook_deliveries_webhook_due
    WHERE webhook_id = ? AND status = 'pending' AND run_at <= ? LIMIT ?)`,
  endpointClaim: `${CLAIM_SELECT} AND d.webhook_id = ? ORDER BY d.run_at LIMIT ?`,
  nextDue: `SELECT min((SELECT d.run_at FROM webhook_deliveries d INDEXED BY webhook_deliveries_webhook_due
    WHERE d.webhook_id = w.id AND d.status = 'pending' ORDER BY d.run_at LIMIT 1)) FROM webhooks w WHERE w.is_active = 1`,
};

/**
 * A lease is `run_at` moved to `leaseUntil`: if the process dies mid-delivery the row simply falls
 * due again then (and a restart takes it over at once, see takeOverLeases).
 */
function lease(db: Db, rows: ClaimRow[], leaseUntil: Date): ClaimedDelivery[] {
  const update = stmt(db, 'UPDATE webhook_deliveries SET run_at = ?, locked_until = ? WHERE id = ?');
  for (const row of rows) update.run(leaseUntil.toISOString(), leaseUntil.toISOString(), row.id);
  return rows.map((row) => ({
    id: row.id,
    publicId: row.public_id,
    webhookId: row.webhook_id,
    attempts: row.attempts,
    url: row.url,
    sealedSecret: row.secret,
    event: { id: row.event_public_id, type: row.type, timestamp: row.created_at, dataJson: row.data },
  }));
}

/** An active webhook as the fair claim sees it. */
export interface ActiveWebhook {
  id: string;
  projectId: string;
}

/** Every active webhook, by project: a small catalog table, read whole. */
export function activeWebhooks(db: Db): ActiveWebhook[] {
  return stmt<ActiveWebhook>(db, 'SELECT id, project_id AS projectId FROM webhooks WHERE is_active = 1 ORDER BY project_id, id').all();
}

/**
 * How many of one webhook's deliveries are due, counting no further than `cap`: a walk of at most
 * `cap` entries of its partial index, whatever its backlog.
 */
export function dueCount(db: Db, webhookId: string, now: Date, cap: number): number {
  return stmt<number>(db, CLAIM_PLANS.dueCount).pluck().get(webhookId, now.toISOString(), cap)!;
}

/** Leases up to `limit` due deliveries of one webhook, oldest first, through its partial index. */
export function claimEndpointDeliveries(db: Db, webhookId: string, now: Date, leaseUntil: Date, limit: number): ClaimedDelivery[] {
  const rows = stmt<ClaimRow>(db, CLAIM_PLANS.endpointClaim).all(now.toISOString(), webhookId, limit);
  return lease(db, rows, leaseUntil);
}

/** A success ends the endpoint's failure streak; resolves with whether there was one. */
export function recordDelivered(db: Db, deliveryId: number, webhookId: string, httpStatus: number, now: Date): { recovered: boolean } {
  stmt(db, `UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, last_status = ?, last_error = NULL,
    locked_until = NULL, delivered_at = ? WHERE id = ? AND status = 'pending'`).run(httpStatus, now.toISOString(), deliveryId);
  const recovered = stmt(db, 'UPDATE webhooks SET failing_since = NULL, failed_deliveries = 0 WHERE id = ? AND failing_since IS NOT NULL')
    .run(webhookId).changes > 0;
  return { recovered };
}

export interface DisablePolicy {
  /** Disable once nothing has succeeded for this long... */
  disableAfterMs: number;
  /** ...across at least this many failed deliveries. */
  minFailedDeliveries: number;
}

export const DEFAULT_DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;
export const DEFAULT_DISABLE_POLICY: DisablePolicy = { disableAfterMs: DEFAULT_DISABLE_AFTER_MS, minFailedDeliveries: 3 };

export interface FailureEffect {
  dead: boolean;
  /** This failure began the endpoint's failure streak. */
  startedFailing: boolean;
  /** This failure disabled the endpoint: why, or null. */
  disabled: string | null;
}

/**
 * Reschedules a failed attempt per the retry schedule (after the last one the delivery is dead) and
 * counts it against its endpoint. The endpoint is disabled on sustained failure, not on one bad
 * delivery: when nothing has succeeded for `disableAfterMs` across several failed deliveries, or at
 * once on 410 Gone (the receiver says the endpoint is gone for good).
 */
export function recordFailed(db: Db, deliveryId: number, failure: { httpStatus: number | null; error: string }, now: Date,
  policy: DisablePolicy = DEFAULT_DISABLE_POLICY): FailureEffect {
  return atomically(db, () => {
    const row = reschedule(db, deliveryId, failure, now);
    if (!row) return { dead: false, startedFailing: false, disabled: null };
    const { dead } = row;

    const webhook = stmt<{ failing_since: string | null; failed_deliveries: number; is_active: number }>(db,
      'SELECT failing_since, failed_deliveries, is_active FROM webhooks WHERE id = ?').get(row.webhook_id)!;
    const startedFailing = webhook.failing_since === null;
    const failingSince = webhook.failing_since ?? now.toISOString();
    // A delivery counts once: on its first failed attempt (or the one that starts the streak).
    const failedDeliveries = startedFailing ? 1 : webhook.failed_deliveries + (row.attempts === 0 ? 1 : 0);
    const sustained = now.getTime() - Date.parse(failingSince) >= policy.disableAfterMs && failedDeliveries >= policy.minFailedDeliveries;
    const disabled = webhook.is_active === 0 ? null
      : failure.httpStatus === 410 ? 'the receiver answered 410 Gone'
        : sustained ? `nothing delivered since ${failingSince} (${failedDeliveries} deliveries failed; last: ${failure.error})` : null;
    stmt(db, 'UPDATE webhooks SET failing_since = ?, failed_deliveries = ? WHERE id = ?').run(failingSince, failedDeliveries, row.webhook_id);
    if (disabled) {
      stmt(db, 'UPDATE webhooks SET is_active = 0, failed_at = ?, last_error = ?, updated_at = ? WHERE id = ?')
        .run(now.toISOString(), `Disabled: ${disabled}`, now.toISOString(), row.webhook_id);
      cachedRowsChanged(db);
    }
    return { dead, startedFailing, disabled };
  });
}

/**
 * An attempt that failed on our side (sending threw, or its outcome could not be recorded): it
 * counts towards the delivery's attempts, on the same schedule, but not against its endpoint,
 * which did nothing wrong.
 */
export function recordAttemptError(db: Db, deliveryId: number, error: string, now: Date): { dead: boolean } {
  return atomically(db, () => ({ dead: reschedule(db, deliveryId, { httpStatus: null, error }, now)?.dead ?? false }));
}

/**
 * Counts a failed attempt of a pending delivery: due again per the retry schedule, or dead after
 * the last attempt. Undefined when the delivery is no longer pending; else its webhook and the
 * attempts made before this one.
 */
function reschedule(db: Db, deliveryId: number, failure: { httpStatus: number | null; error: string }, now: Date):
  { webhook_id: string; attempts: number; dead: boolean } | undefined {
  const row = stmt<{ webhook_id: string; attempts: number }>(db,
    "SELECT webhook_id, attempts FROM webhook_deliveries WHERE id = ? AND status = 'pending'").get(deliveryId);
  if (!row) return undefined;
  const attempts = row.attempts + 1;
  const dead = attempts >= MAX_ATTEMPTS;
  const runAt = dead ? now : addMs(now, RETRY_DELAYS_MS[attempts - 1]!);
  stmt(db, `UPDATE webhook_deliveries SET status = ?, attempts = ?, run_at = ?, locked_until = NULL, last_status = ?, last_error = ?
    WHERE id = ?`).run(dead ? 'dead' : 'pending', attempts, runAt.toISOString(), failure.httpStatus, failure.error, deliveryId);
  return { ...row, dead };
}

/**
 * When the next delivery of an active webhook falls due (a lease's expiry counts), or null. One
 * probe of the per-webhook index per active webhook: a disabled endpoint's backlog is never walked.
 */
export function nextDueAt(db: Db): string | null {
  return stmt<string | null>(db, CLAIM_PLANS.nextDue).pluck().get() ?? null;
}

/**
 * At start-up, the leases left by a process that died are taken over at once instead of when they
 * expire: one server owns a database file, so no other runner can be holding them.
 */
export function takeOverLeases(db: Db, now: Date): number {
  return stmt(db, "UPDATE webhook_deliveries SET run_at = ?, locked_until = NULL WHERE status = 'pending' AND locked_until IS NOT NULL")
    .run(now.toISOString()).changes;
}

/**
 * Deletes up to `limit` delivered rows delivered before `deliveredBefore` and dead rows that died
 * before `deadBefore`, and the events left without deliveries: one small transaction per call.
 */
export function pruneDeliveries(db: Db, { deliveredBefore, deadBefore }: { deliveredBefore: Date; deadBefore: Date }, limit: number): number {
  return atomically(db, () => {
    const delivered = stmt<{ id: number; event_id: number }>(db, `SELECT id, event_id FROM webhook_deliveries
      WHERE status = 'delivered' AND delivered_at < ? ORDER BY delivered_at LIMIT ?`).all(deliveredBefore.toISOString(), limit);
    const dead = stmt<{ id: number; event_id: number }>(db, `SELECT id, event_id FROM webhook_deliveries
      WHERE status = 'dead' AND run_at < ? ORDER BY run_at LIMIT ?`).all(deadBefore.toISOString(), limit - delivered.length);
    const rows = [...delivered, ...dead];
    const remove = stmt(db, 'DELETE FROM webhook_deliveries WHERE id = ?');
    for (const row of rows) remove.run(row.id);
    dropOrphanEvents(db, [...new Set(rows.map((row) => row.event_id))]);
    return rows.length;
  });
}

/** Dead deliveries of a webhook created since `since` (while it was failing). */
const FAILED_SINCE = `FROM webhook_deliveries WHERE project_id = ? AND status = 'dead' AND webhook_id = ? AND created_at >= ?`;

export const countFailedSince = (db: Db, projectId: string, webhookId: string, since: string): number =>
  stmt<number>(db, `SELECT count(*) ${FAILED_SINCE}`).pluck().get(projectId, webhookId, since)!;

/** Sends the dead deliveries of a webhook created since `since` again, as replayDelivery does one. */
export function resendFailedSince(db: Db, projectId: string, webhookId: string, since: string, now: Date): number {
  return stmt(db, `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, run_at = ?, locked_until = NULL, last_status = NULL,
    last_error = NULL, delivered_at = NULL WHERE id IN (SELECT id ${FAILED_SINCE})`).run(now.toISOString(), projectId, webhookId, since).changes;
}

export interface Delivery {
  id: string;
  webhookId: string;
  eventId: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  /** When the next attempt is due (pending only). */
  nextAttemptAt: string | null;
  lastStatus: number | null;
  lastError: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

interface DeliveryRow {
  public_id: string;
  webhook_id: string;
  event_public_id: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  run_at: string;
  last_status: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

const DELIVERY_SELECT = `SELECT d.public_id, d.webhook_id, e.public_id AS event_public_id, e.type, d.status, d.attempts, d.run_at,
  d.last_status, d.last_error, d.created_at, d.delivered_at FROM webhook_deliveries d JOIN events e ON e.id = d.event_id`;

const toDelivery = (row: DeliveryRow): Delivery => ({
  id: row.public_id,
  webhookId: row.webhook_id,
  eventId: row.event_public_id,
  type: row.type,
  status: row.status,
  attempts: row.attempts,
  nextAttemptAt: row.status === 'pending' ? row.run_at : null,
  lastStatus: row.last_status,
  lastError: row.last_error,
  createdAt: row.created_at,
  deliveredAt: row.delivered_at,
});

/** A project's deliveries, newest first, optionally of one status. */
export function listDeliveries(db: Db, projectId: string, query: { status?: DeliveryStatus | undefined; limit: number }): Delivery[] {
  const rows = query.status
    ? stmt<DeliveryRow>(db, `${DELIVERY_SELECT} WHERE d.project_id = ? AND d.status = ? ORDER BY d.id DESC LIMIT ?`).all(projectId, query.status, query.limit)
    : stmt<DeliveryRow>(db, `${DELIVERY_SELECT} WHERE d.project_id = ? ORDER BY d.id DESC LIMIT ?`).all(projectId, query.limit);
  return rows.map(toDelivery);
}

/** One webhook's deliveries, newest first, optionally of one status, a page at a time (the admin). */
export function webhookDeliveries(db: Db, projectId: string, webhookId: string, query: { status?: DeliveryStatus | undefined; limit: number; offset: number }):
  { deliveries: Delivery[]; pagination: Page } {
  const where = 'WHERE d.project_id = @projectId AND d.webhook_id = @webhookId AND (@status IS NULL OR d.status = @status)';
  const params = { projectId, webhookId, status: query.status ?? null, limit: query.limit, offset: query.offset };
  const total = stmt<number>(db, `SELECT count(*) FROM webhook_deliveries d ${where}`).pluck().get(params)!;
  const rows = stmt<DeliveryRow>(db, `${DELIVERY_SELECT} ${where} ORDER BY d.id DESC LIMIT @limit OFFSET @offset`).all(params);
  return { deliveries: rows.map(toDelivery), pagination: pageOf(total, query, rows.length) };
}

/**
 * Sends a dead (or already delivered) delivery again: a fresh set of attempts, due now, with the
 * same event id. A pending one is refused: it is already going to be sent. With `of` (the admin),
 * a delivery of another webhook or project is not found.
 */
export function replayDelivery(db: Db, publicId: string, now: Date, of?: { projectId: string; webhookId: string }): Delivery {
  return atomically(db, () => {
    const row = stmt<{ id: number; status: DeliveryStatus; run_at: string; project_id: string; webhook_id: string }>(db,
      'SELECT id, status, run_at, project_id, webhook_id FROM webhook_deliveries WHERE public_id = ?').get(publicId);
    if (!row || (of && (row.project_id !== of.projectId || row.webhook_id !== of.webhookId))) throw notFound(`No delivery with id "${publicId}"${of ? ' of this webhook' : ''}`);
    if (row.status === 'pending') throw conflict(`Delivery ${publicId} is still pending; its next attempt is due at ${row.run_at}.`);
    stmt(db, `UPDATE webhook_deliveries SET status = 'pending', attempts = 0, run_at = ?, locked_until = NULL, last_status = NULL,
      last_error = NULL, delivered_at = NULL WHERE id = ?`).run(now.toISOString(), row.id);
    return toDelivery(stmt<DeliveryRow>(db, `${DELIVERY_SELECT} WHERE d.id = ?`).get(row.id)!);
  });
}

/** For `punchcard doctor`: deliveries waiting, deliveries given up on, webhooks failing and disabled. */
export function deliveryHealth(db: Db): {
  pendingDeliveries: number; deadDeliveries: number; failedWebhooks: number;
  failing: { id: string; projectId: string; url: string; state: 'failing' | 'disabled'; failingSince: string | null; disabledAt: string | null }[];
  retention: string;
} {
  const count = (sql: string) => stmt<number>(db, sql).pluck().get()!;
  const failing = stmt<{ id: string; project_id: string; url: string; is_active: number; failing_since: string | null; failed_at: string | null }>(db,
    'SELECT id, project_id, url, is_active, failing_since, failed_at FROM webhooks WHERE failing_since IS NOT NULL OR failed_at IS NOT NULL ORDER BY id').all();
  return {
    pendingDeliveries: count("SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'"),
    deadDeliveries: count("SELECT count(*) FROM webhook_deliveries WHERE status = 'dead'"),
    failedWebhooks: count('SELECT count(*) FROM webhooks WHERE failed_at IS NOT NULL'),
    failing: failing.map((w) => ({ id: w.id, projectId: w.project_id, url: w.url, state: w.is_active ? 'failing' : 'disabled',
      failingSince: w.failing_since, disabledAt: w.failed_at })),
    retention: RETENTION_NOTE,
  };
}

/** Deletes those of `eventIds` that no delivery refers to any more. */
export function dropOrphanEvents(db: Db, eventIds: number[]): void {
  const drop = stmt(db, 'DELETE FROM events WHERE id = ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries WHERE event_id = ?)');
  for (const id of eventIds) drop.run(id, id);
}

/** Pending and dead deliveries (/healthz, /metrics), each counted from its own partial index. */
export function deliveryCounts(db: Db): { pending: number; dead: number } {
  const count = (status: DeliveryStatus) => stmt<{ n: number }>(db, 'SELECT count(*) AS n FROM webhook_deliveries WHERE status = ?').get(status)!.n;
  return { pending: count('pending'), dead: count('dead') };
}
