import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { AppError, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { SecretBox } from '../../shared/secrets.ts';
import { withDefaults, type StoreSettings, type StoreSettingsPatch } from './store-settings.ts';

export interface StoreRow {
  id: string;
  project_id: string;
  site_url: string;
  organization_id: string;
  consumer_key: string;
  consumer_secret: string;
  webhook_secret: string;
  webhooks: string;
  settings: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

export interface RegisteredWebhook {
  id: number;
  topic: string;
}

/** The store as the API shows it: never its credentials or secret. */
export interface StoreView {
  id: string;
  siteUrl: string;
  organizationId: string;
  webhooks: RegisteredWebhook[];
  createdAt: string;
}

/** What talking to a store needs, decrypted: for the client in src/integrations, never for an answer. */
export interface StoreCredentials {
  storeId: string;
  siteUrl: string;
  consumerKey: string;
  consumerSecret: string;
}

const STORE_SELECT = `SELECT id, project_id, site_url, organization_id, consumer_key, consumer_secret, webhook_secret, webhooks, settings,
  created_at, updated_at, deleted_at FROM commerce_stores`;

export const storeView = (row: StoreRow): StoreView => ({
  id: row.id,
  siteUrl: row.site_url,
  organizationId: row.organization_id,
  webhooks: JSON.parse(row.webhooks) as RegisteredWebhook[],
  createdAt: row.created_at,
});

/** The project's connected store, if any. */
export const liveStore = (db: Db, projectId: string): StoreRow | undefined =>
  stmt<StoreRow>(db, `${STORE_SELECT} WHERE project_id = ? AND deleted_at IS NULL`).get(projectId);

/** A store by id, connected or not (deliveries for a disconnected store are refused by the caller). */
export const storeById = (db: Db, storeId: string): StoreRow | undefined => stmt<StoreRow>(db, `${STORE_SELECT} WHERE id = ?`).get(storeId);

/** The project's connected store with this id, or 404: another project's store is not found either. */
export function requireStore(db: Db, projectId: string, storeId: string): StoreRow {
  const row = liveStore(db, projectId);
  if (!row || row.id !== storeId) throw notFound(`No connected store with id "${storeId}" in this project`);
  return row;
}

export const credentialsOf = (box: SecretBox, row: StoreRow): StoreCredentials => ({
  storeId: row.id, siteUrl: row.site_url, consumerKey: box.open(row.consumer_key), consumerSecret: box.open(row.consumer_secret),
});

export const webhookSecretOf = (box: SecretBox, row: StoreRow): string => box.open(row.webhook_secret);

export const storeSettings = (row: StoreRow): StoreSettings => withDefaults(JSON.parse(row.settings));

/** A site is one store however its URL is written: no trailing slash, lower-case scheme and host. */
export function normalizeSiteUrl(siteUrl: string): string {
  const url = new URL(siteUrl);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

const differentSite = (existing: StoreRow, siteUrl: string) => new AppError(409, 'Conflict',
  `This project is connected to the store ${existing.site_url}; disconnect it (DELETE /api/commerce/connect) before connecting ${siteUrl}.`);

export interface ConnectionPlan {
  /** The id the store keeps (an earlier row of the same site is revived), known before the webhooks are registered. */
  storeId: string;
  /** Webhooks registered earlier, to remove from the store once the new ones exist. */
  previousWebhooks: RegisteredWebhook[];
  /** The credentials those were registered with. */
  previous: StoreCredentials | null;
}

/**
 * Before any network call: 409 when the project is connected to another site, else the store id
 * to use (the same site's row, live or disconnected, keeps its id and its order history).
 */
export function planConnection(db: Db, box: SecretBox, projectId: string, siteUrl: string): ConnectionPlan {
  const live = liveStore(db, projectId);
  if (live && live.site_url !== siteUrl) throw differentSite(live, siteUrl);
  const earlier = live ?? stmt<StoreRow>(db, `${STORE_SELECT} WHERE project_id = ? AND site_url = ? ORDER BY created_at DESC LIMIT 1`).get(projectId, siteUrl);
  return {
    storeId: earlier?.id ?? newId('store'),
    previousWebhooks: live ? (JSON.parse(live.webhooks) as RegisteredWebhook[]) : [],
    previous: live ? credentialsOf(box, live) : null,
  };
}

export interface Connection {
  storeId: string;
  siteUrl: string;
  organizationId: string;
  consumerKey: string;
  consumerSecret: string;
  webhookSecret: string;
  webhooks: RegisteredWebhook[];
}

/**
 * Records a checked connection, credentials and secret sealed. Returns the store and whether it
 * is new to the project right now (201) or a reconnection of the live one (200).
 */
export function saveConnection(db: Db, box: SecretBox, projectId: string, connection: Connection, now: Date): { store: StoreView; created: boolean } {
  return atomically(db, () => {
    const live = liveStore(db, projectId);
    // Another connect may have committed while this one waited on the store.
    if (live && live.site_url !== connection.siteUrl) throw differentSite(live, connection.siteUrl);
    if (live && live.id !== connection.storeId) throw new AppError(409, 'Conflict', 'Another connection of this store finished first; try again.');
    const at = now.toISOString();
    const values = {
      id: connection.storeId, project_id: projectId, site_url: connection.siteUrl, organization_id: connection.organizationId,
      consumer_key: box.seal(connection.consumerKey), consumer_secret: box.seal(connection.consumerSecret),
      webhook_secret: box.seal(connection.webhookSecret), webhooks: JSON.stringify(connection.webhooks), at,
    };
    const existing = storeById(db, connection.storeId);
    if (existing) {
      // A revived store starts a new connection: its createdAt is now; a live one keeps its own.
      stmt(db, `UPDATE commerce_stores SET organization_id = @organization_id, consumer_key = @consumer_key, consumer_secret = @consumer_secret,
        webhook_secret = @webhook_secret, webhooks = @webhooks, updated_at = @at, deleted_at = NULL,
        created_at = CASE WHEN deleted_at IS NULL THEN created_at ELSE @at END WHERE id = @id AND project_id = @project_id`).run(values);
    } else {
      stmt(db, `INSERT INTO commerce_stores (id, project_id, site_url, organization_id, consumer_key, consumer_secret, webhook_secret, webhooks,
        created_at, updated_at) VALUES (@id, @project_id, @site_url, @organization_id, @consumer_key, @consumer_secret, @webhook_secret, @webhooks, @at, @at)`)
        .run(values);
    }
    return { store: storeView(storeById(db, connection.storeId)!), created: !live };
  });
}

/** DELETE /api/commerce/connect: the project's store, or 404. The caller removes its webhooks from the store first. */
export function requireLiveStore(db: Db, projectId: string): StoreRow {
  const row = liveStore(db, projectId);
  if (!row) throw notFound('This project has no connected store.');
  return row;
}

/** Marks the store disconnected; its orders stay, so reconnecting the same site never pays an order twice. */
export function disconnectStore(db: Db, projectId: string, storeId: string, now: Date): { id: string; deleted: true } {
  return atomically(db, () => {
    const row = requireStore(db, projectId, storeId);
    stmt(db, "UPDATE commerce_stores SET deleted_at = ?, updated_at = ?, webhooks = '[]' WHERE id = ?").run(now.toISOString(), now.toISOString(), row.id);
    return { id: row.id, deleted: true };
  });
}

export interface SettingsView {
  storeId: string;
  settings: StoreSettings;
}

export function getStoreSettings(db: Db, projectId: string, storeId: string): SettingsView {
  const row = requireStore(db, projectId, storeId);
  return { storeId: row.id, settings: storeSettings(row) };
}

/** PATCH: the given settings replace theirs (productOverrides as a whole); the rest stay. */
export function updateStoreSettings(db: Db, projectId: string, storeId: string, patch: StoreSettingsPatch, now: Date): SettingsView {
  return atomically(db, () => {
    const row = requireStore(db, projectId, storeId);
    const stored = { ...(JSON.parse(row.settings) as Record<string, unknown>), ...patch };
    const settings = withDefaults(stored);
    stmt(db, 'UPDATE commerce_stores SET settings = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(stored), now.toISOString(), row.id);
    return { storeId: row.id, settings };
  });
}

/** The admin's integrations page: the project's connected store (at most one), with when its last order delivery came. */
export function connectedStores(db: Db, projectId: string): { id: string; siteUrl: string; connectedAt: string; lastDeliveryAt: string | null; state: 'connected' }[] {
  const row = liveStore(db, projectId);
  if (!row) return [];
  const lastDeliveryAt = stmt<string | null>(db, 'SELECT max(updated_at) FROM commerce_orders WHERE store_id = ?').pluck().get(row.id) ?? null;
  return [{ id: row.id, siteUrl: row.site_url, connectedAt: row.created_at, lastDeliveryAt, state: 'connected' }];
}
