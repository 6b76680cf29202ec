import { writeFileSync } from 'node:fs';
import { Command } from 'commander';
import { signWidgetSession } from '../../src/domain/widget-auth.ts';
import { buildWidget, describeSize } from '../../widget/build.ts';
import { withStore } from '../context.ts';
import { printJson } from '../output.ts';

export const widgetCommand = new Command('widget').description('help embedding the widget');

widgetCommand.command('sign')
  .description('sign a widget session for one member: prints the X-Widget-Auth header and a Punchcard.init config (valid 5 minutes)')
  .requiredOption('--project <projectId>', 'project')
  .requiredOption('--external-id <externalId>', 'the member, as your shop identifies them')
  .option('--public-key <pk>', 'publishable key to sign with (default: the project\'s newest live one)')
  .option('--api-url <url>', 'where the widget reaches this server, put into the init config')
  .option('--json', 'print JSON')
  .action((options: { project: string; externalId: string; publicKey?: string; apiUrl?: string; json?: boolean }, command: Command) =>
    withStore(command, ({ db, box }) => {
      const { header, ...claims } = signWidgetSession(db, box, { projectId: options.project, externalId: options.externalId, publicKey: options.publicKey }, new Date());
      const config = { ...claims, ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}) };
      if (options.json) return printJson({ header, config });
      console.log(`X-Widget-Auth: ${header}\n\nPunchcard.init(${JSON.stringify(config, null, 2)});`);
    }));

widgetCommand.command('build')
  .description('build widget.js (the server builds it by itself; this is for a CDN copy) and print its size against the budget')
  .option('--out <file>', 'write the minified script here')
  .action(async (options: { out?: string }) => {
    const bundle = await buildWidget();
    if (options.out) writeFileSync(options.out, bundle.code);
    console.log(describeSize(bundle));
  });
