import { Command, Option } from 'commander';
import type { CreatedProject } from '../../src/domain/projects.ts';
import { startServer } from '../../src/server.ts';
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

export const serveCommand = new Command('serve')
  .description('start the HTTP server (server API under /api/v1)')
  .addOption(new Option('--port <port>', 'port to listen on; 0 picks a free one').env('PUNCHCARD_PORT').default('3000'))
  .addOption(new Option('--host <host>', 'address to listen on').env('PUNCHCARD_HOST').default('127.0.0.1'))
  .addOption(new Option('--public-url <url>', 'the URL shoppers and integrations reach this server at').env('PUNCHCARD_PUBLIC_URL'))
  .addOption(new Option('--synchronous <mode>', 'SQLite durability: full (survives power loss) or normal (faster)')
    .choices(['full', 'normal']).env('PUNCHCARD_SYNCHRONOUS').default('full'))
  .option('--demo', 'serve the demo shop page at /demo for the demo project "punchcard seed --demo" creates (off by default)')
  .addOption(new Option('--allow-insecure-webhooks', 'let webhooks use plain http to loopback hosts (development and tests)')
    .env('PUNCHCARD_ALLOW_INSECURE_WEBHOOKS'))
  .addOption(new Option('--webhook-retention <duration>', 'keep delivered webhook rows this long, e.g. 7d or 12h')
    .env('PUNCHCARD_WEBHOOK_RETENTION').default('7d'))
  .addOption(new Option('--replicate <url>', 'replicate the database with Litestream to this replica URL (file:///path, s3://bucket/path, …)').env('PUNCHCARD_REPLICATE_URL'))
  .addOption(new Option('--replicate-interval <duration>', 'how often Litestream ships new writes').env('PUNCHCARD_REPLICATE_INTERVAL').default('1s'))
  .action(async (options: {
    port: string; host: string; publicUrl?: string; synchronous: 'full' | 'normal'; demo?: boolean; allowInsecureWebhooks?: boolean;
    webhookRetention: string; replicate?: string; replicateInterval: string;
  }, command: Command) => {
    const port = options.port === '0' ? 0 : parsePositiveInt(options.port, '--port');
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
