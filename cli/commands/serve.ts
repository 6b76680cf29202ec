import { Command, Option } from 'commander';
import type { CreatedProject } from '../../src/domain/project/projects.ts';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from '../../src/http/guard.ts';
import { canonicalAddress } from '../../src/http/client-address.ts';
import { parseRate } from '../../src/shared/rates.ts';
import { parseMasterKey } from '../../src/shared/secrets.ts';
import { CONNECTION_DEFAULTS, startServer } from '../../src/server.ts';
import { dbPath } from '../context.ts';
import { parseBoolean, parseChoice, parseCount, parseDuration, parsePort, parseUrl, setting, type Parse } from '../options.ts';
import { revealProjectSecrets } from '../secret-output.ts';
import { replicationBanner } from './replicate.ts';
import { listenHttps, trustHelp, type LocalCertificate } from '../local-https.ts';

/** The first start's keys: on a terminal in full; otherwise (systemd's journal) in a new 0600 file. */
function bootstrapBanner(created: CreatedProject, url: string, db: string): string {
  const { lines, file } = revealProjectSecrets(db, created, process.stdout.isTTY === true, false); // serve has no --json
  return `
Created project "${created.project.name}" (${created.project.id}): the database had no project yet (the demo shop does not count).
  publishable key  ${created.publishableKey}
Its secret key and widget secret are shown only this once; store them somewhere safe:
${lines.join('\n')}
Try: curl -H "Authorization: Bearer ${file ? '$SECRET_KEY' : created.secretKey}" -H 'content-type: application/json' \\
       -d '{"externalId":"alice"}' ${url}/api/v1/members
`;
}

/** The admin is on and nobody can sign in to it yet: how to make its first owner (once, at start). */
function firstOwnerHint(projects: { id: string; name: string }[], url: string): string {
  const project = projects.length === 1 ? '' : ` --project ${projects[0]?.id ?? 'PROJECT_ID'}`;
  const which = projects.length > 1 ? `\n  (one invite per project; the projects: ${projects.map((p) => `${p.id} "${p.name}"`).join(', ')})` : '';
  return `\nThe web admin is at ${url}/admin, and no one can sign in to it yet. Make its first owner (prints a one-time link):
  punchcard admin invite you@your-shop.example --role owner${project} --public-url ${url}${which}\n`;
}

/**
 * --no-admin, or PUNCHCARD_NO_ADMIN=true (a variable that names what it turns off reads as a
 * boolean: true turns the admin off).
 */
function adminEnabled(command: Command): boolean {
  if (command.getOptionValueSource('admin') === 'cli') return command.getOptionValue('admin') !== false;
  const env = process.env.PUNCHCARD_NO_ADMIN;
  if (env === undefined || env.trim() === '') return true;
  try {
    return !parseBoolean(env);
  } catch (error) {
    throw new Error(`PUNCHCARD_NO_ADMIN (--no-admin): ${(error as Error).message}`);
  }
}

/** A taken or forbidden port as one line naming it and the setting, instead of a stack trace. */
function listenError(error: unknown, port: number, host: string): unknown {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE') return new Error(`port ${port} on ${host} is already in use; stop what uses it or choose another with --port (or PUNCHCARD_PORT)`);
  if (code === 'EACCES') return new Error(`not allowed to listen on port ${port} on ${host}; choose a port above 1023 with --port (or PUNCHCARD_PORT)`);
  return error;
}

/** `--rate-limit-<name>` / PUNCHCARD_RATE_LIMIT_<NAME> for each server-wide limit (docs/api.md, Limits). */
const RATE_LIMIT_OPTIONS: [keyof RateLimitSettings, string, string][] = [
  ['apiKey', 'api-key', 'server API requests per secret key'],
  ['member', 'member', 'widget requests per member'],
  ['memberWrites', 'member-writes', 'widget changes (claims, plays, shares, profile…) per member'],
  ['promoFailures', 'promo-failures', 'failed promo codes per member'],
  ['address', 'address', 'requests per client address, server API excepted'],
  ['authFailures', 'auth-failures', 'failed credential checks (keys, widget tickets, signatures) per client address; right ones always pass'],
  ['promoFailuresPerAddress', 'promo-failures-per-address', 'failed widget promo codes per client address'],
];
/** A rate as text (the guard parses it again per project); checked here so a bad one stops start-up. */
const parseRateText: Parse<string> = (text) => {
  parseRate(text.trim(), 'it');
  return text.trim();
};
/** Reverse-proxy addresses, checked here so a typo stops start-up instead of never matching. */
const parseProxies: Parse<string[]> = (text) => text.split(',').map((address) => address.trim()).filter(Boolean).map((address) => {
  if (canonicalAddress(address) === null) throw new Error(`must be comma-separated IP addresses ("${address}" is not one)`);
  return address;
});
const optionName = (flag: string) => `rateLimit${flag.split('-').map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')}`;

export const serveCommand: Command = new Command('serve')
  .description('start the HTTP server (server API under /api/v1); creates the database if there is none, and refuses to start beside another server on the same file')
  .addOption(new Option('--port <port>', 'port to listen on; 0 picks a free one').env('PUNCHCARD_PORT').default('3000'))
  .addOption(new Option('--host <host>', 'address to listen on').env('PUNCHCARD_HOST').default('127.0.0.1'))
  .addOption(new Option('--public-url <url>', 'the URL shoppers and integrations reach this server at').env('PUNCHCARD_PUBLIC_URL'))
  .addOption(new Option('--synchronous <mode>', 'SQLite durability: full (survives power loss) or normal (faster)')
    .env('PUNCHCARD_SYNCHRONOUS').default('full'))
  .addOption(new Option('--log-level <level>', 'info, error (errors only) or silent').env('PUNCHCARD_LOG').default('info'))
  .addOption(new Option('--log-format <format>', 'text, or json (one JSON object per line)').env('PUNCHCARD_LOG_FORMAT').default('text'))
  .addOption(new Option('--quiet', 'no line per request (messages and errors are still logged)').env('PUNCHCARD_QUIET'))
  .option('--demo', 'serve the demo shop page at /demo for the demo project "punchcard seed --demo" creates (off by default)')
  .addOption(new Option('--allow-insecure-webhooks', 'let webhooks use plain http to loopback hosts (development and tests); the variable takes true/false/1/0/yes/no')
    .env('PUNCHCARD_ALLOW_INSECURE_WEBHOOKS'))
  .addOption(new Option('--allow-insecure-stores', 'let WooCommerce stores be connected over plain http on loopback hosts (development and tests)')
    .env('PUNCHCARD_ALLOW_INSECURE_STORES'))
  .addOption(new Option('--webhook-retention <duration>', 'keep delivered webhook rows this long, e.g. 7d or 12h')
    .env('PUNCHCARD_WEBHOOK_RETENTION').default('7d'))
  .addOption(new Option('--webhook-dead-retention <duration>', 'keep dead webhook deliveries (given up after 5 attempts) this long')
    .env('PUNCHCARD_WEBHOOK_DEAD_RETENTION').default('30d'))
  .addOption(new Option('--webhook-disable-after <duration>', 'disable a webhook when nothing has succeeded for this long (across 3+ failed deliveries)')
    .env('PUNCHCARD_WEBHOOK_DISABLE_AFTER').default('5d'))
  .addOption(new Option('--replicate <url>', 'replicate the database with Litestream to this replica URL (file:///path, s3://bucket/path, …)').env('PUNCHCARD_REPLICATE_URL'))
  .addOption(new Option('--replicate-interval <duration>', 'how often Litestream ships new writes').env('PUNCHCARD_REPLICATE_INTERVAL').default('1s'))
  .addOption(new Option('--trusted-proxy <addresses>', 'comma-separated addresses of reverse proxies whose X-Forwarded-For names the client')
    .env('PUNCHCARD_TRUSTED_PROXY'))
  .addOption(new Option('--max-connections <n>', 'open sockets at most').env('PUNCHCARD_MAX_CONNECTIONS').default(String(CONNECTION_DEFAULTS.maxConnections)))
  .addOption(new Option('--headers-timeout <duration>', 'time to receive a request\'s headers').env('PUNCHCARD_HEADERS_TIMEOUT').default('10s'))
  .addOption(new Option('--request-timeout <duration>', 'time to receive a whole request, body included').env('PUNCHCARD_REQUEST_TIMEOUT').default('30s'))
  .addOption(new Option('--metrics-token <token>', 'a token that reads /metrics (Authorization: Bearer), besides the one `punchcard metrics token` makes').env('PUNCHCARD_METRICS_TOKEN'))
  .addOption(new Option('--keep-alive-timeout <duration>', 'close an idle keep-alive socket after this').env('PUNCHCARD_KEEP_ALIVE_TIMEOUT').default('65s'))
  .addOption(new Option('--no-admin', 'turn the web admin (/admin and /api/admin) off').env('PUNCHCARD_NO_ADMIN'))
  .addOption(new Option('--audit-retention <duration>', 'keep audit log entries this long, e.g. 400d').env('PUNCHCARD_AUDIT_RETENTION').default('400d'))
  // For the benches (bench/webhooks.ts measures what queuing deliveries costs the award route without sending them); hidden, since a shop's deliveries would only pile up.
  .addOption(new Option('--no-webhook-runner', 'queue webhook deliveries but never send them').hideHelp())
  .option('--https', 'serve HTTPS with a self-signed certificate for localhost (development only: a widget on an https:// shop page cannot call http://)')
  .action(async (_options: object, command: Command) => {
    // Every setting is parsed before anything starts: a bad one stops start-up naming itself.
    const port = setting(command, 'port', parsePort)!;
    const host = setting(command, 'host', String)!;
    const replicate = setting(command, 'replicate', parseUrl);
    const replicateInterval = setting(command, 'replicateInterval', parseDuration)!;
    const masterKey = process.env.PUNCHCARD_MASTER_KEY;
    if (masterKey) parseMasterKey(masterKey);
    const rateLimits: Partial<RateLimitSettings> = {};
    for (const [key, flag] of RATE_LIMIT_OPTIONS) rateLimits[key] = setting(command, optionName(flag), parseRateText)!;
    let certificate: LocalCertificate | null = null;
    const options = {
      db: dbPath(command),
      listen: setting(command, 'https', parseBoolean) ? listenHttps(dbPath(command), (made) => { certificate = made; }) : undefined,
      port,
      host,
      publicUrl: setting(command, 'publicUrl', parseUrl),
      synchronous: setting(command, 'synchronous', parseChoice('full', 'normal')) === 'normal' ? 'NORMAL' as const : 'FULL' as const,
      masterKey,
      demo: setting(command, 'demo', parseBoolean),
      logLevel: setting(command, 'logLevel', parseChoice('info', 'error', 'silent'))!,
      logFormat: setting(command, 'logFormat', parseChoice('text', 'json')),
      quiet: setting(command, 'quiet', parseBoolean),
      webhooks: {
        allowInsecure: setting(command, 'allowInsecureWebhooks', parseBoolean) === true, runner: setting(command, 'webhookRunner', parseBoolean) !== false,
        retentionMs: setting(command, 'webhookRetention', parseDuration)!,
        deadRetentionMs: setting(command, 'webhookDeadRetention', parseDuration)!, disableAfterMs: setting(command, 'webhookDisableAfter', parseDuration)!,
      },
      commerce: { allowInsecure: setting(command, 'allowInsecureStores', parseBoolean) === true },
      replicate: replicate ? { url: replicate, intervalMs: replicateInterval } : undefined,
      metricsToken: setting(command, 'metricsToken', String),
      admin: { enabled: adminEnabled(command), auditRetentionMs: setting(command, 'auditRetention', parseDuration)! },
      guard: { rateLimits, trustedProxies: setting(command, 'trustedProxy', parseProxies) },
      connections: {
        maxConnections: setting(command, 'maxConnections', parseCount)!,
        headersTimeoutMs: setting(command, 'headersTimeout', parseDuration)!,
        requestTimeoutMs: setting(command, 'requestTimeout', parseDuration)!,
        keepAliveTimeoutMs: setting(command, 'keepAliveTimeout', parseDuration)!,
      },
    };
    const server = await startServer(options).catch((error: unknown) => {
      throw listenError(error, port, host);
    });
    // One write, so whoever reads the first line also gets the keys with it.
    const replicating = server.replication ? replicationBanner(server.replication.record(), server.store.path) : '';
    const demo = server.demo ? `\nWidget demo: ${server.url}/demo` : '';
    console.log(`Punchcard listening on ${server.url} (database ${server.store.path})${replicating}${demo}${certificate ? trustHelp(server.url, certificate) : ''}${server.bootstrap ? bootstrapBanner(server.bootstrap, server.url, server.store.path) : ''}${server.firstOwner ? firstOwnerHint(server.firstOwner.projects, server.publicUrl) : ''}`);
    const shutdown = (signal: string) => {
      server.ctx.log.info(`${signal}: finishing in-flight writes and shutting down`);
      server.close().then(() => process.exit(0), (error) => {
        server.ctx.log.error('shutdown failed', error);
        process.exit(1);
      });
    };
    process.once('SIGINT', () => shutdown('SIGINT'));
    process.once('SIGTERM', () => shutdown('SIGTERM'));
  });

for (const [key, flag, description] of RATE_LIMIT_OPTIONS) {
  serveCommand.addOption(new Option(`--rate-limit-${flag} <rate>`, `${description}, e.g. 600/min, 10/h or off`)
    .env(`PUNCHCARD_RATE_LIMIT_${flag.toUpperCase().replaceAll('-', '_')}`).default(DEFAULT_RATE_LIMITS[key]));
}
