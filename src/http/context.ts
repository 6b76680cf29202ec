import type { Db } from '../db/connection.ts';
import type { Clock } from '../shared/clock.ts';
import type { SecretBox } from '../shared/secrets.ts';
import type { WebhookSettings } from '../webhooks/dispatcher.ts';
import type { Logger } from '../shared/log.ts';
import type { Guard } from './guard.ts';
import type { ReplicationStatus } from '../replication/status.ts';
import type { CommerceSettings } from '../integrations/commerce/woo-client.ts';
import type { Metrics } from './metrics.ts';
import type { ScryptCost } from '../domain/operators/passwords.ts';

/** The web admin's settings (docs/admin.md); absent: the admin is on with its defaults. */
export interface AdminSettings {
  /** `serve --no-admin` turns /admin and /api/admin off (404). */
  enabled: boolean;
  /** scrypt's cost for new password hashes (DEFAULT_SCRYPT). */
  passwordCost: ScryptCost;
  /** Where Settings → Backups writes and lists backups: a `backups` folder beside the database. */
  backupDir: string;
  /** The database's path: its copies are named after it, as `punchcard backup FOLDER` names them. */
  databasePath: string;
  /** Whether the Discord bot runs inside this server (PUNCHCARD_DISCORD_BOT_TOKEN). */
  botRunning: () => boolean;
}

/** What every route needs: the store, the clock, and the one way to write. */
export interface AppContext {
  db: Db;
  box: SecretBox;
  clock: Clock;
  /** Runs synchronous domain work in the next group commit; resolves once it is durable. */
  write: <T>(work: () => T) => Promise<T>;
  log: Logger;
  /** Outbound webhooks: URL policy, DNS and the attempt timeout. */
  webhooks: WebhookSettings;
  /** The URL shoppers reach this server at (--public-url, else the address it listens on), without a trailing slash: share links use it. */
  publicUrl: () => string;
  /** Rate limits and client addresses. */
  guard: Guard;
  /** Connected stores: --allow-insecure-stores and the REST timeout. */
  commerce: CommerceSettings;
  /** Replication as /healthz reports it; null when the server does not replicate. */
  replication?: () => ReplicationStatus | null;
  /** Prometheus metrics of this server (/metrics). */
  metrics: Metrics;
  /** A token that reads /metrics besides the one in the database (serve --metrics-token). */
  metricsToken?: string | undefined;
  admin?: AdminSettings;
}
