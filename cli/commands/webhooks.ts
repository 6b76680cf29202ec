import { Command, Option } from 'commander';
import { listDeliveries, replayDelivery, type DeliveryStatus } from '../../src/domain/deliveries.ts';
import { enableWebhook, listWebhooks } from '../../src/domain/webhooks.ts';
import { withStore } from '../context.ts';
import { parsePositiveInt, printJson, printTable } from '../output.ts';

export const webhooksCommand = new Command('webhooks').description('look at webhooks and their deliveries; replay, re-enable');

webhooksCommand.command('list')
  .description("list a project's webhooks (never their secrets)")
  .requiredOption('--project <projectId>', 'project')
  .option('--json', 'print JSON')
  .action((options: { project: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const { webhooks } = listWebhooks(db, options.project);
    if (options.json) return printJson({ webhooks });
    printTable(webhooks.map((w) => ({ ...w, events: w.events.join(','), state: w.isActive ? 'active' : w.failedAt ? 'FAILED' : 'paused' })),
      ['id', 'url', 'events', 'state', 'failedAt', 'lastError']);
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
  .description('re-enable a failed or paused webhook: its held deliveries resume, new events are sent to it again')
  .argument('<webhookId>', 'whk_… id')
  .option('--json', 'print JSON')
  .action((webhookId: string, options: { json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const webhook = enableWebhook(db, webhookId, new Date());
    if (options.json) return printJson(webhook);
    console.log(`Webhook ${webhook.id} (${webhook.url}) is active again.`);
  }));
