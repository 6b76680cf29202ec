import { Command, Option } from 'commander';
import type { CreatedProject } from '../../src/domain/projects.ts';
import { DEFAULT_RATE_LIMITS, type RateLimitSettings } from '../../src/http/guard.ts';
import { parseRate } from '../../src/http/rate-limit.ts';
import { CONNECTION_DEFAULTS, startServer } from '../../src/server.ts';
import { dbPath } from '../context.ts';
import { parseDuration, parsePositiveInt } from '../output.ts';
import { replicationBanner } from './replicate.ts';

const bootstrapBanner = (created: CreatedProject, url: string) => `
Created project "${created.project.name}" (${created.project.id}) on this empty database.
Its keys are shown only this once; store them somewhere safe:
  secret key       ${created.secretKey}
  publishable key  ${created.publishableKey}
  widget secret    ${created.widgetSecret}
Try: curl -H "Authorization: Bearer ${created.secretKey}" -H 'content-type: application/json' \\
       -d '{"externalId":"alice"}' ${url}/api/v1/members
`;

/** `--rate-limit-<name>` / PUNCHCARD_RATE_LIMIT_<NAME> for each server-wide limit (docs/api.md, Limits). */
const RATE_LIMIT_OPTIONS: [keyof RateLimitSettings, string, string][] = [
  ['apiKey', 'api-key', 'server API requests per secret key'],
  ['member', 'member', 'widget requests per member'],
  ['memberWrites', 'member-writes', 'widget changes (claims, plays, shares, profile…) per member'],
  ['promoFailures', 'promo-failures', 'failed promo codes per member'],
  ['address', 'address', 'requests per client address, server API excepted'],
  ['authFailures', 'auth-failures', 'failed API-key and widget-signature checks per client address'],
  ['promoFailuresPerAddress', 'promo-failures-per-address', 'failed widget promo codes per client address'],
];
const optionName = (flag: string) => `rateLimit${flag.split('-').map((word) => word[0]!.toUpperCase() + word.slice(1)).join('')}`;

export const serveCommand: Command = new Command('serve')
  .description('start the HTTP server (server API under /api/v1)')
  .addOption(new Option('--port <port>', 'port to listen on; 0 picks a free one').env('PUNCHCARD_PORT').default('3000'))
  .addOption(new Option('--host <host>', 'address to listen on').env('PUNCHCARD_HOST').default('127.0.0.1'))
  .addOption(new Option('--public-url <url>', 'the URL shoppers and integrations reach this server at').env('PUNCHCARD_PUBLIC_URL'))
  .addOption(new Option('--synchronous <mode>', 'SQLite durability: full (survives power loss) or normal (faster)')
    .choices(['full', 'normal']).env('PUNCHCARD_SYNCHRONOUS').default('full'))
  .option('--demo', 'serve the demo shop page at /demo (default: only when listening on loopback)')
  .option('--no-demo', 'do not serve the demo shop page')
  .addOption(new Option('--allow-insecure-webhooks', 'let webhooks use plain http to loopback hosts (development and tests)')
    .env('PUNCHCARD_ALLOW_INSECURE_WEBHOOKS'))
  .addOption(new Option('--webhook-retention <duration>', 'keep delivered webhook rows this long, e.g. 7d or 12h')
    .env('PUNCHCARD_WEBHOOK_RETENTION').default('7d'))
  .addOption(new Option('--replicate <url>', 'replicate the database with Litestream to this replica URL (file:///path, s3://bucket/path, …)').env('PUNCHCARD_REPLICATE_URL'))
  .addOption(new Option('--replicate-interval <duration>', 'how often Litestream ships new writes').env('PUNCHCARD_REPLICATE_INTERVAL').default('1s'))
  .addOption(new Option('--trusted-proxy <addresses>', 'comma-separated addresses of reverse proxies whose X-Forwarded-For names the client')
    .env('PUNCHCARD_TRUSTED_PROXY'))
  .addOption(new Option('--max-connections <n>', 'open sockets at most').env('PUNCHCARD_MAX_CONNECTIONS').default(String(CONNECTION_DEFAULTS.maxConnections)))
  .addOption(new Option('--headers-timeout <duration>', 'time to receive a request\'s headers').env('PUNCHCARD_HEADERS_TIMEOUT').default('10s'))
  .addOption(new Option('--request-timeout <duration>', 'time to receive a whole request, body included').env('PUNCHCARD_REQUEST_TIMEOUT').default('30s'))
  .addOption(new Option('--keep-alive-timeout <duration>', 'close an idle keep-alive socket after this').env('PUNCHCARD_KEEP_ALIVE_TIMEOUT').default('65s'))
  .action(async (options: {
    port: string; host: string; publicUrl?: string; synchronous: 'full' | 'normal'; demo?: boolean; allowInsecureWebhooks?: boolean;
    webhookRetention: string; replicate?: string; replicateInterval: string;
    trustedProxy?: string; maxConnections: string; headersTimeout: string; requestTimeout: string; keepAliveTimeout: string;
  } & Record<string, string>, command: Command) => {
    const port = options.port === '0' ? 0 : parsePositiveInt(options.port, '--port');
    const rateLimits = Object.fromEntries(RATE_LIMIT_OPTIONS.map(([key, flag]) => {
      const value = options[optionName(flag)]!;
      parseRate(value, `--rate-limit-${flag} (PUNCHCARD_RATE_LIMIT_${flag.toUpperCase().replaceAll('-', '_')})`);
      return [key, value];
    })) as unknown as RateLimitSettings;
    const server = await startServer({
      db: dbPath(command),
      port,
      host: options.host,
      publicUrl: options.publicUrl,
      synchronous: options.synchronous === 'normal' ? 'NORMAL' : 'FULL',
      masterKey: process.env.PUNCHCARD_MASTER_KEY,
      demo: options.demo,
      logLevel: process.env.PUNCHCARD_LOG === 'silent' ? 'silent' : 'info',
      webhooks: { allowInsecure: options.allowInsecureWebhooks === true, retentionMs: parseDuration(options.webhookRetention) },
      replicate: options.replicate ? { url: options.replicate, intervalMs: parseDuration(options.replicateInterval) } : undefined,
      guard: { rateLimits, trustedProxies: options.trustedProxy?.split(',').map((address) => address.trim()).filter(Boolean) },
      connections: {
        maxConnections: parsePositiveInt(options.maxConnections, '--max-connections'),
        headersTimeoutMs: parseDuration(options.headersTimeout),
        requestTimeoutMs: parseDuration(options.requestTimeout),
        keepAliveTimeoutMs: parseDuration(options.keepAliveTimeout),
      },
    });
    // One write, so whoever reads the first line also gets the keys with it.
    const replicating = server.replication ? replicationBanner(server.replication.record(), server.store.path) : '';
    const demo = server.demo ? `\nWidget demo: ${server.url}/demo` : '';
    console.log(`Punchcard listening on ${server.url} (database ${server.store.path})${replicating}${demo}${server.bootstrap ? bootstrapBanner(server.bootstrap, server.url) : ''}`);
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
