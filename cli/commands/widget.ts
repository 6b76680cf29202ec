import { Command } from 'commander';
import { badRequest } from '../../src/shared/errors.ts';
import { getSettings } from '../../src/domain/project/settings.ts';
import { signWidgetSession } from '../../src/domain/widget/widget-auth.ts';
import { validate } from '../../src/shared/validate.ts';
import { widgetMember } from '../../src/schemas/widget.ts';
import { describeSize, readWidgetFiles, scriptVersion, WIDGET_SCRIPT, writeWidgetFiles } from '../../widget/files.ts';
import { withStore } from '../context.ts';
import { printJson } from '../output.ts';

function parseJson(text: string, option: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw badRequest(`${option} must be JSON, e.g. '{"name":"Alice"}'.`);
  }
}

export const widgetCommand = new Command('widget').description('help embedding the widget');

widgetCommand.command('sign')
  .description('sign a widget session for one member: prints the X-Widget-Auth header and a Punchcard.init config (valid 5 minutes)')
  .requiredOption('--project <projectId>', 'project')
  .requiredOption('--external-id <externalId>', 'the member, as your shop identifies them')
  .option('--public-key <pk>', 'publishable key to sign with (default: the project\'s newest live one)')
  .option('--api-url <url>', 'where the widget reaches this server, put into the init config')
  .option('--member <json>', 'profile fields to sign with the session, e.g. \'{"name":"Alice","email":"alice@example.com"}\'')
  .option('--json', 'print JSON')
  .action((options: { project: string; externalId: string; publicKey?: string; apiUrl?: string; member?: string; json?: boolean }, command: Command) =>
    withStore(command, ({ db, box }) => {
      const member = options.member === undefined ? undefined : validate(widgetMember, { member: parseJson(options.member, '--member') }).member;
      const { header, ...claims } = signWidgetSession(db, box, {
        projectId: options.project, externalId: options.externalId, publicKey: options.publicKey, member,
      }, new Date());
      const config = { ...claims, ...(options.apiUrl ? { apiUrl: options.apiUrl } : {}) };
      if (options.json) return printJson({ header, config });
      const origins = getSettings(db, options.project).widget.allowedOrigins;
      const originNote = origins.length === 0
        ? `\n\nThe widget runs only on loopback origins (localhost, 127.0.0.1, [::1]) until you list your shop's:\n  punchcard project set --project ${options.project} --allow-origin https://your-shop.example`
        : `\n\nAllowed origins besides loopback: ${origins.join(', ')}`;
      console.log(`X-Widget-Auth: ${header}\n\nPunchcard.init(${JSON.stringify(config, null, 2)});${originNote}`);
    }));

widgetCommand.command('files')
  .description('print the sizes of the built widget.js and its chunks against the budget; --out-dir copies them (for a CDN)')
  .option('--out-dir <dir>', 'write widget.js and widget/*.js (its chunks, which it loads from beside itself) into this folder')
  .action((options: { outDir?: string }) => {
    const files = readWidgetFiles();
    if (!files) throw new Error('the widget is not built: run `npm run build` (npm ci does it)');
    if (options.outDir) writeWidgetFiles(files, options.outDir);
    console.log(describeSize(files));
    console.log(`\nVersioned address (may be cached for a year; changes with every release): /widget.js?v=${scriptVersion(files.get(WIDGET_SCRIPT)!)}`);
  });
