import { createServer, type RequestListener, type Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { toNodeHandler } from 'h3';
import type { Synchronous } from './db/connection.ts';
import { GroupCommitter } from './db/group-commit.ts';
import { rewriteFileWrittenBeforeSecureDelete, StorageMaintenance, useIncrementalVacuum } from './db/maintenance.ts';
import { lockForServer } from './db/server-lock.ts';
import { systemClock, type Clock } from './shared/clock.ts';
import { countRealProjects, createProject, listProjects, type CreatedProject } from './domain/project/projects.ts';
import { countOperators } from './domain/operators/operators.ts';
import { DEFAULT_SCRYPT, type ScryptCost } from './domain/operators/passwords.ts';
import { DEFAULT_AUDIT_RETENTION_MS } from './domain/audit/audit-log.ts';
import { adminPruneJob } from './jobs/admin-housekeeping.ts';
import { indexNewMembers } from './domain/members/members.ts';
import { demoProject, NO_DEMO_PROJECT } from './domain/widget/widget-demo.ts';
import { createApp } from './http/app.ts';
import type { AppContext } from './http/context.ts';
import { Guard, type GuardOptions } from './http/guard.ts';
import { withSecurityHeaders } from './http/security-headers.ts';
import { withRequestLog } from './http/request-log.ts';
import { Metrics } from './http/metrics.ts';
import { trackInFlight } from './http/in-flight.ts';
import { getSettings } from './domain/project/settings.ts';
import type { JobRunner } from './jobs/runner.ts';
import { startBotFromEnv, type RunningBot } from './integrations/community/gateway-bot.ts';
import { startScheduler } from './jobs/scheduler.ts';
import { webhookPruneJob } from './webhooks/housekeeping.ts';
import { createDeliveryRunner, webhookSettings, type AttemptOutcome, type DeliveryOptions } from './webhooks/dispatcher.ts';
import { createLogger, type LogFormat, type LogLevel } from './shared/log.ts';
import { locateLitestream, startReplication, type ReplicateOptions } from './replication/start.ts';
import type { Replication } from './replication/supervisor.ts';
import { openStore, type Store } from './db/store.ts';
import { commerceSettings, type CommerceSettings } from './integrations/commerce/woo-client.ts';
import { createCouponRunner, type CouponOutcome } from './integrations/commerce/coupon-jobs.ts';
import type { CouponJob } from './domain/commerce/coupons.ts';
import { commerceDeps } from './http/commerce/deps.ts';

export interface ServeOptions {
  db: string;
  port: number;
  host: string;
  publicUrl?: string | undefined;
  synchronous?: Synchronous | undefined;
  masterKey?: string | undefined;
  clock?: Clock;
  logLevel?: LogLevel;
  /** Log lines as text (default) or JSON (`--log-format json`). */
  logFormat?: LogFormat | undefined;
  /** Leave out the line per request (`--quiet`); the tests' servers do. */
  quiet?: boolean | undefined;
  /** Serve the demo shop at /demo (`serve --demo`), for the demo project `seed --demo` made; never by default. */
  demo?: boolean | undefined;
  /** Run the scheduled jobs (expiry pass, key purge). Tests drive them by hand instead. */
  scheduler?: boolean;
  /** Outbound webhooks: --allow-insecure-webhooks, the attempt timeout, the delivery runner, retention. */
  webhooks?: DeliveryOptions;
  /** Connected stores: plain http to loopback stores (--allow-insecure-stores), the REST timeout. */
  commerce?: Partial<CommerceSettings> & { runner?: boolean };
  /** Replicate the database with Litestream, run as a supervised child process. */
  replicate?: ReplicateOptions | undefined;
  /** Server-wide rate limits and the trusted reverse proxies (src/http/guard.ts has the defaults). */
  guard?: GuardOptions;
  /** Sockets and timeouts; each one not given keeps its default (CONNECTION_DEFAULTS). */
  connections?: Partial<ConnectionOptions>;
  /** Serves the handler some other way than plain HTTP: `serve --https` (cli/local-https.ts). */
  listen?: ListenWith;
  /** A token that reads /metrics, besides the one `punchcard metrics token` stores in the database. */
  metricsToken?: string | undefined;
  /** The web admin (docs/admin.md): on unless `enabled: false` (serve --no-admin); audit retention; scrypt's cost (tests lower it). */
  admin?: { enabled?: boolean; auditRetentionMs?: number; passwordCost?: ScryptCost } | undefined;
}

/** Starts a server for `handler` on port and host; the caller then applies the connection limits to it. */
export type ListenWith = (handler: RequestListener, port: number, host: string) => Promise<{ server: Server | HttpsServer; url: string }>;

export interface ConnectionOptions {
  /** Open sockets at most; more are closed as they arrive. */
  maxConnections: number;
  /** Time to receive a request's headers. */
  headersTimeoutMs: number;
  /** Time to receive a whole request, body included: a slowly sent body is cut off here (408). */
  requestTimeoutMs: number;
  /** An idle keep-alive socket is closed after this. */
  keepAliveTimeoutMs: number;
}

/** How long a shutdown waits for requests in flight (systemd's default stop timeout is 90 s). */
const SHUTDOWN_GRACE_MS = 10_000;

export const CONNECTION_DEFAULTS: ConnectionOptions = {
  maxConnections: 1000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  // Longer than common proxies' idle timeout, so they never reuse a socket this server closed.
  keepAliveTimeoutMs: 65_000,
};

export interface RunningServer {
  url: string;
  publicUrl: string;
  /** Whether /demo is served. */
  demo: boolean;
  /** Set when the database was empty and a "Default" project was created for this start. */
  bootstrap: CreatedProject | null;
  /** The admin is on and no operator exists yet: `serve` says how to make the first owner (the projects it could own). */
  firstOwner: { projects: { id: string; name: string }[] } | null;
  ctx: AppContext;
  store: Store;
  /** The webhook delivery runner (started unless `webhooks.runner` is false; `runDue()` drives it by hand). */
  deliveries: JobRunner<{ key: string }, AttemptOutcome>;
  /** The store coupon job runner (retries coupons a store could not create at claim time; `runDue()` drives it by hand). */
  coupons: JobRunner<CouponJob, CouponOutcome>;
  replication: Replication | null;
  /** WAL and free-page housekeeping; null with Litestream, which then owns checkpoints. */
  maintenance: StorageMaintenance | null;
  close(): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });
}

export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  const log = createLogger(options.logLevel, {
    format: options.logFormat, requests: options.quiet !== true,
    pino: options.logFormat === 'json' ? (await import('pino')).default : undefined,
  });
  const litestream = options.replicate ? locateLitestream() : null; // before the database is touched
  // Settings are checked before the database is touched, so a bad one stops start-up naming itself.
  const limits = { ...CONNECTION_DEFAULTS, ...options.connections };
  if (limits.headersTimeoutMs > limits.requestTimeoutMs) {
    throw new Error(`The headers timeout (${limits.headersTimeoutMs} ms) must not exceed the request timeout (${limits.requestTimeoutMs} ms).`);
  }
  const lock = lockForServer(options.db);
  let store: Store;
  try {
    store = await openStore({ path: options.db, synchronous: options.synchronous, masterKey: options.masterKey });
  } catch (error) {
    lock.release();
    throw error;
  }
  const guard = new Guard(options.guard ?? {}, clock, log, (projectId) => getSettings(store.db, projectId).rateLimits);
  const { db, box } = store;
  if (options.demo === true && demoProject(db) === null) {
    store.close();
    lock.release();
    throw new Error(NO_DEMO_PROJECT);
  }
  try {
    if (rewriteFileWrittenBeforeSecureDelete(db)) log.info('rewrote the database once, so that nothing it freed before secure_delete was on stays in it');
    if (useIncrementalVacuum(db)) log.info('converted the database to incremental vacuum (once, at this upgrade)');
  } catch (error) {
    // Another connection held the file (a backup, a report): the rewrite waits for the next start.
    log.info(`could not rewrite the database (VACUUM) yet: ${(error as Error).message}`);
  }
  try {
    // Members written by other means (a bulk load in SQL) are searchable before the first request.
    indexNewMembers(db);
  } catch (error) {
    // The file was busy: the next member created indexes them with it.
    log.info(`could not index new members for search yet: ${(error as Error).message}`);
  }

  let replication: Replication | null = null;
  let maintenance: StorageMaintenance | null = null;
  const metrics = new Metrics(db, options.db);
  const committer = new GroupCommitter(db, { onBatch: (size) => metrics.batch(size) });
  let url = '';
  // Without its trailing slash: every link is this plus a path.
  const publicUrl = () => (options.publicUrl ?? url).replace(/\/+$/, '');
  let communityBot: RunningBot | null = null;
  const admin = { enabled: options.admin?.enabled !== false, passwordCost: options.admin?.passwordCost ?? DEFAULT_SCRYPT,
    backupDir: join(dirname(resolve(options.db)), 'backups'), databasePath: resolve(options.db), botRunning: () => communityBot !== null };
  const ctx: AppContext = { db, box, clock, log, write: (work) => committer.run(work), webhooks: webhookSettings(options.webhooks),
    guard, commerce: commerceSettings(options.commerce), replication: () => replication?.status() ?? null, publicUrl,
    metrics, metricsToken: options.metricsToken, admin };
  const demo = options.demo === true;
  const inFlight = trackInFlight(withRequestLog(log, withSecurityHeaders(toNodeHandler(createApp(ctx, { demo })))));
  const handler = inFlight.listener;
  let server: Server | HttpsServer = createServer({
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    // How often Node looks for requests past their timeouts (its default, 30 s, would let them run that much longer).
    connectionsCheckingInterval: Math.min(1000, limits.headersTimeoutMs),
  }, handler);
  let address: AddressInfo | null = null;
  try {
    if (litestream && options.replicate) {
      // Litestream is then the one checkpointer (Litestream's tips for busy databases; see docs/production.md).
      db.pragma('wal_autocheckpoint = 0');
      replication = startReplication(litestream, options.db, options.replicate, options.masterKey ? 'environment' : 'file', log);
    }
    if (options.listen) {
      ({ server, url } = await options.listen(handler, options.port, options.host));
      server.headersTimeout = limits.headersTimeoutMs;
      server.requestTimeout = limits.requestTimeoutMs;
    } else {
      address = await listen(server, options.port, options.host);
    }
    server.keepAliveTimeout = limits.keepAliveTimeoutMs;
    server.maxConnections = limits.maxConnections;
    maintenance = replication ? null : new StorageMaintenance(db, options.db);
  } catch (error) {
    store.close();
    await replication?.stop();
    lock.release();
    throw error;
  }
  // Only once listening: if the port is taken, an empty database stays empty, so the next start
  // still creates the Default project and shows its keys. The demo shop's project does not count.
  const bootstrap = countRealProjects(db) === 0 ? createProject(db, box, { name: 'Default' }, clock()) : null;
  if (address) url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  const scheduler = options.scheduler === false ? null : startScheduler(db, ctx.write, clock, log,
    { maintenance, more: [webhookPruneJob(db, ctx.write, clock, log, options.webhooks),
      adminPruneJob(db, ctx.write, clock, log, options.admin?.auditRetentionMs ?? DEFAULT_AUDIT_RETENTION_MS)] });
  // The runner's writes go in the committer's background lane and it slows down while requests come (docs/webhooks.md).
  const deliveries = createDeliveryRunner({ ...ctx, write: (work) => committer.background(work), foreground: () => committer.foregroundWrites,
    settings: ctx.webhooks, onOutcome: (outcome) => metrics.delivery(outcome) }, options.webhooks);
  if (options.webhooks?.runner !== false) await deliveries.start();
  const coupons = createCouponRunner(commerceDeps(ctx));
  if (options.commerce?.runner !== false) await coupons.start();
  communityBot = await startBotFromEnv(process.env, ctx);
  let firstOwner: RunningServer['firstOwner'] = null;
  if (admin.enabled && countOperators(db) === 0) {
    const demoId = demoProject(db)?.id; // once, not once per project
    firstOwner = { projects: listProjects(db).filter((project) => project.id !== demoId).map(({ id, name }) => ({ id, name })) };
  }

  return {
    url,
    publicUrl: publicUrl(),
    demo,
    bootstrap,
    firstOwner,
    ctx,
    store,
    deliveries,
    coupons,
    replication,
    maintenance,
    /**
     * Stops taking requests and answers those in flight (their writes commit), stops the scheduler
     * and the webhook runner (waiting for what they are doing), then closes the database and lets
     * Litestream ship the last writes. Nothing acknowledged is lost (test/shutdown.test.ts).
     */
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const [unfinished] = await Promise.all([inFlight.finish(SHUTDOWN_GRACE_MS), scheduler?.stop(), deliveries.stop(), coupons.stop(),
        communityBot?.stop()]);
      if (unfinished > 0) log.warn(`shutdown: ${unfinished} request(s) still running after ${SHUTDOWN_GRACE_MS / 1000} s were cut off`);
      await committer.drain();
      server.closeAllConnections();
      await closed;
      store.close();
      await replication?.stop(); // after the last write, so Litestream's last sync ships it
      lock.release();
    },
  };
}
