import { Command } from 'commander';
import { communitySettings, rotateCommunitySecret, settingsView, updateCommunitySettings } from '../../src/domain/community/settings.ts';
import { communitySettingsPatch } from '../../src/schemas/community.ts';
import { validate } from '../../src/shared/validate.ts';
import { dbPath, withStore } from '../context.ts';
import { printJson, printSummary } from '../output.ts';
import { revealSecrets } from '../secret-output.ts';
import { readJsonFile } from './catalog.ts';
import { botAction } from './community-bot.ts';

export const communityCommand = new Command('community').description('the Discord community integration (docs/discord.md)');

/** Prints settings, and the webhook secret (once) the way every command reveals secrets. */
function show(command: Command, settings: Record<string, unknown> & { webhookSecret?: string }, json: boolean | undefined): void {
  const { webhookSecret, ...view } = settings;
  if (json) {
    printJson(settings);
    return;
  }
  printSummary(view);
  if (webhookSecret !== undefined) {
    const { lines } = revealSecrets(dbPath(command), 'community', [{ label: 'Community webhook secret (shown once)', value: webhookSecret }]);
    for (const line of lines) console.log(line);
  }
}

communityCommand.command('settings')
  .description("show a project's community settings, or change them with --set or --file (the same fields as PATCH /api/v1/community/settings)")
  .requiredOption('--project <projectId>', 'project')
  .option('--set <field=value...>', 'set fields; values are JSON (numbers, true, null, ["ids"]) or else text, e.g. --set guildId=123 messagePoints=2')
  .option('--file <path>', 'a JSON file of fields to set')
  .option('--json', 'print JSON')
  .action((options: { project: string; set?: string[]; file?: string; json?: boolean }, command: Command) => withStore(command, ({ db, box }) => {
    if (!options.set && !options.file) return show(command, { ...settingsView(communitySettings(db, options.project)) }, options.json);
    const patch: Record<string, unknown> = options.file ? { ...(readJsonFile(options.file) as Record<string, unknown>) } : {};
    for (const pair of options.set ?? []) {
      const at = pair.indexOf('=');
      if (at < 1) throw new Error(`--set takes field=value (got "${pair}")`);
      patch[pair.slice(0, at)] = parseValue(pair.slice(0, at), pair.slice(at + 1));
    }
    show(command, { ...updateCommunitySettings(db, box, options.project, validate(communitySettingsPatch, patch), new Date()) }, options.json);
  }));

/** Whether a settings field takes text (the guild, the OAuth client's id and secret), read from its schema. */
function takesText(field: string): boolean {
  let schema: { type: string; wrapped?: unknown } | undefined = Object.hasOwn(communitySettingsPatch.entries, field)
    ? communitySettingsPatch.entries[field as keyof typeof communitySettingsPatch.entries] : undefined;
  while (schema?.wrapped) schema = schema.wrapped as { type: string; wrapped?: unknown };
  return schema?.type === 'string';
}

/**
 * A --set value as the field takes it. Discord ids are digits, which JSON would read as numbers
 * (and past 2^53, wrongly): a field that takes text gets the text as it is (`null` still clears it);
 * elsewhere values are JSON, and a long run of digits (an id in a list) stays text.
 */
function parseValue(field: string, text: string): unknown {
  if (takesText(field) && text !== 'null') return text;
  if (/^\d{15,}$/.test(text)) return text;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

communityCommand.command('rotate-secret')
  .description('generate a new community webhook secret (the old one stops working at once) and show it once')
  .requiredOption('--project <projectId>', 'project')
  .option('--json', 'print JSON')
  .action((options: { project: string; json?: boolean }, command: Command) => withStore(command, ({ db, box }) => {
    show(command, rotateCommunitySecret(db, box, options.project, new Date()), options.json);
  }));

communityCommand.command('bot')
  .description('run the Discord bot: it turns what it sees in the guild into signed community events for a server (docs/discord.md)')
  .option('--url <url>', 'the Punchcard server to send events to', 'http://127.0.0.1:3000')
  .option('--guild <guildId>', 'the guild (Discord server) to watch; or PUNCHCARD_COMMUNITY_GUILD_ID')
  .option('--secret <secret>', 'the community webhook secret; better PUNCHCARD_COMMUNITY_SECRET (a flag shows in ps)')
  .action(botAction);
