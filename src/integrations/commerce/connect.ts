import type { Db } from '../../db/connection.ts';
import {
  credentialsOf, disconnectStore, normalizeSiteUrl, planConnection, requireLiveStore, saveConnection, type RegisteredWebhook, type StoreCredentials,
  type StoreView,
} from '../../domain/commerce/stores.ts';
import { AppError } from '../../shared/errors.ts';
import { randomBase62 } from '../../shared/ids.ts';
import type { Logger } from '../../shared/log.ts';
import type { SecretBox } from '../../shared/secrets.ts';
import { checkCredentials, checkSiteUrl, createWebhook, deleteWebhook, type CommerceSettings } from './woo-client.ts';

/** The store topics Punchcard listens to (docs/woocommerce.md). */
export const TOPICS = ['order.updated', 'customer.created', 'customer.updated'] as const;

/** What connecting needs from the server: the store, the one way to write, where deliveries reach us. */
export interface CommerceDeps {
  db: Db;
  box: SecretBox;
  write: <T>(work: () => T) => Promise<T>;
  clock: () => Date;
  log: Logger;
  publicUrl: () => string;
  commerce: CommerceSettings;
}

export interface ConnectInput {
  siteUrl: string;
  consumerKey: string;
  consumerSecret: string;
  /** A label of the caller's; the project's id when none is given. */
  organizationId?: string | undefined;
}

/** Removes webhooks from a store, best effort: a store that is down keeps them until it disables them itself. */
async function removeWebhooks(deps: CommerceDeps, creds: StoreCredentials, webhooks: RegisteredWebhook[]): Promise<void> {
  for (const hook of webhooks) {
    try {
      await deleteWebhook(creds, deps.commerce, hook.id);
    } catch (error) {
      deps.log.info(`commerce: could not remove webhook ${hook.id} from ${creds.siteUrl}: ${(error as Error).message}`);
    }
  }
}

/**
 * Every way connecting can fail at the store answers the same. The store may be on the server's own
 * network, so telling a refused connection from a timeout, a redirect or an answer would map that
 * network (hosts, open ports) for whoever holds a project's key; the server's log says what failed.
 */
export const connectionFailed = (siteUrl: string) => new AppError(400, 'store_connection_failed',
  `The store ${siteUrl} could not be connected: check that the address is the one the site answers at (https, with or without www), `
  + 'that WooCommerce is active with pretty permalinks, and that the key has Read/Write permissions. The server\'s log says what failed.');

/** Runs a call to the store while connecting: a failure is logged as it is and answered as connectionFailed. */
async function atStore<T>(deps: CommerceDeps, siteUrl: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    deps.log.warn(`commerce: connecting ${siteUrl} failed: ${(error as Error).message}`);
    throw connectionFailed(siteUrl);
  }
}

/**
 * POST /api/commerce/connect: checks the credentials against the store, registers the three
 * webhooks with a new secret, then records the connection (credentials sealed) in one write. A
 * reconnection of the same site replaces the webhooks it registered before. Network first, so no
 * transaction waits on the store; saveConnection re-checks what could have changed meanwhile.
 */
export async function connectStore(deps: CommerceDeps, projectId: string, input: ConnectInput): Promise<{ store: StoreView; created: boolean }> {
  checkSiteUrl(input.siteUrl, deps.commerce);
  const siteUrl = normalizeSiteUrl(input.siteUrl);
  const plan = planConnection(deps.db, deps.box, projectId, siteUrl);
  const creds: StoreCredentials = { storeId: plan.storeId, siteUrl, consumerKey: input.consumerKey, consumerSecret: input.consumerSecret };
  await atStore(deps, siteUrl, () => checkCredentials(creds, deps.commerce));
  const secret = randomBase62(40);
  const deliveryUrl = `${deps.publicUrl().replace(/\/+$/, '')}/api/commerce/webhooks/${plan.storeId}`;
  const webhooks: RegisteredWebhook[] = [];
  try {
    for (const topic of TOPICS) {
      webhooks.push(await atStore(deps, siteUrl, () => createWebhook(creds, deps.commerce, { name: `Punchcard ${topic}`, topic, deliveryUrl, secret })));
    }
  } catch (error) {
    await removeWebhooks(deps, creds, webhooks);
    throw error;
  }
  let saved: { store: StoreView; created: boolean };
  try {
    saved = await deps.write(() => saveConnection(deps.db, deps.box, projectId, { ...creds, organizationId: input.organizationId ?? projectId, webhookSecret: secret, webhooks }, deps.clock()));
  } catch (error) {
    await removeWebhooks(deps, creds, webhooks);
    throw error;
  }
  await removeWebhooks(deps, plan.previous ?? creds, plan.previousWebhooks);
  return saved;
}

/** DELETE /api/commerce/connect: removes the webhooks it registered (best effort), then disconnects the store. */
export async function disconnect(deps: CommerceDeps, projectId: string): Promise<{ id: string; deleted: true }> {
  const row = requireLiveStore(deps.db, projectId);
  await removeWebhooks(deps, credentialsOf(deps.box, row), JSON.parse(row.webhooks) as RegisteredWebhook[]);
  return deps.write(() => disconnectStore(deps.db, projectId, row.id, deps.clock()));
}
