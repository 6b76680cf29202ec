import { Command, Option } from 'commander';
import { listDeliveries, replayDelivery, resendFailedSince, type DeliveryStatus } from '../../src/webhooks/deliveries.ts';
import { enableWebhook, listWebhooks, webhookProject, webhookView, type Webhook } from '../../src/webhooks/subscriptions.ts';
import { withStore } from '../context.ts';
import { parsePositiveInt, printJson, printTable } from '../output.ts';

export const webhooksCommand = new Command('webhooks').description("a project's outbound webhooks and their deliveries");

webhooksCommand.command('list')
  .description("list a project's webhooks (never their secrets)")
  .requiredOption('--project <projectId>', 'project')
  .option('--json', 'print JSON')
  .action((options: { project: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const { webhooks } = listWebhooks(db, options.project);
    if (options.json) return printJson({ webhooks });
    printTable(webhooks.map(row), ['id', 'url', 'events', 'state', 'failingSince', 'failedAt', 'lastError']);
  }));

const row = (w: Webhook) => ({ ...w, events: w.events.join(','), state: w.state === 'active' || w.state === 'paused' ? w.state : w.state.toUpperCase() });

webhooksCommand.command('show')
  .description('show one webhook: its state, since when it is failing, why it was disabled (never its secret)')
  .argument('<webhookId>', 'whk_… id')
  .option('--json', 'print JSON')
  .action((webhookId: string, options: { json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const webhook = webhookView(db, webhookProject(db, webhookId), webhookId);
    if (options.json) return printJson(webhook);
    for (const [name, value] of Object.entries(row(webhook))) console.log(`${name}: ${value ?? '-'}`);
  }));

webhooksCommand.command('deliveries')
  .description("list a project's deliveries, newest first")
  .requiredOption('--project <projectId>', 'project')
  .addOption(new Option('--status <status>', 'only this status').choices(['pending', 'delivered', 'dead']))
  .option('--limit <n>', 'at most this many', '50')
  .option('--json', 'print JSON')
  .action((options: { project: string; status?: DeliveryStatus; limit: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const deliveries = listDeliveries(db, options.project, { status: options.status, limit: Math.min(parsePositiveInt(options.limit, '--limit'), 1000) });
    if (options.json) return printJson({ deliveries });
    printTable(deliveries.map((d) => ({ ...d })), ['id', 'webhookId', 'type', 'status', 'attempts', 'nextAttemptAt', 'lastStatus', 'lastError']);
  }));

webhooksCommand.command('replay')
  .description('send a dead (or delivered) delivery again: five fresh attempts, the same event id')
  .argument('<deliveryId>', 'dlv_… id')
  .option('--json', 'print JSON')
  .action((deliveryId: string, options: { json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const delivery = replayDelivery(db, deliveryId, new Date());
    if (options.json) return printJson(delivery);
    console.log(`Delivery ${delivery.id} is pending again; a running server sends it within seconds (if webhook ${delivery.webhookId} is active).`);
  }));

webhooksCommand.command('enable')
  .description('re-enable a disabled or paused webhook: its held deliveries resume, new events are sent to it again')
  .argument('<webhookId>', 'whk_… id')
  .option('--resend-failed', 'also send again the deliveries that died while it was failing')
  .option('--json', 'print JSON')
  .action((webhookId: string, options: { resendFailed?: boolean; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const webhook = enableWebhook(db, webhookId, new Date(), { resendFailed: options.resendFailed === true });
    if (options.json) return printJson(webhook);
    console.log(`Webhook ${webhook.id} (${webhook.url}) is active again.`);
    const down = webhook.failedWhileDown;
    if (down && down.resent > 0) console.log(`${down.resent} deliveries that failed while it was down (since ${down.since}) are pending again.`);
    else if (down && down.deliveries > 0) {
      console.log(`${down.deliveries} deliveries failed while it was down (since ${down.since}); send them again with:\n`
        + `  punchcard webhooks resend-failed ${webhook.id} --since ${down.since}`);
    }
  }));

webhooksCommand.command('resend-failed')
  .description('send again the dead deliveries of a webhook created since a time (what failed while it was down)')
  .argument('<webhookId>', 'whk_… id')
  .requiredOption('--since <time>', 'ISO 8601 time, as `enable` printed it')
  .option('--json', 'print JSON')
  .action((webhookId: string, options: { since: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const since = new Date(options.since);
    if (Number.isNaN(since.getTime())) throw new Error(`--since must be an ISO 8601 time (got "${options.since}")`);
    const resent = resendFailedSince(db, webhookProject(db, webhookId), webhookId, since.toISOString(), new Date());
    if (options.json) return printJson({ webhookId, resent });
    console.log(`${resent} deliveries of ${webhookId} are pending again.`);
  }));
