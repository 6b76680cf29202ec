import { Command } from 'commander';
import { getSettings, projectView, updateSettings } from '../../src/domain/project/settings.ts';
import { validate } from '../../src/shared/validate.ts';
import { projectPatchBody } from '../../src/schemas/project.ts';
import { withStore } from '../context.ts';
import { parsePositiveInt, printJson, printSummary } from '../output.ts';
import { readJsonFile } from './catalog.ts';

export const projectCommand = new Command('project').description("the settings of one project (time zone, expiry, bonuses, referrals, sharing, widget), not the projects themselves");

projectCommand.command('show')
  .description('print the project and all its settings, defaults included')
  .requiredOption('--project <projectId>', 'project')
  .option('--json', 'print JSON')
  .action((options: { project: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const view = projectView(db, options.project);
    if (options.json) return printJson(view);
    printSummary({ ...view });
  }));

projectCommand.command('set')
  .description('change settings: flags for the common ones, --from-json for any (nested objects merge)')
  .requiredOption('--project <projectId>', 'project')
  .option('--from-json <file>', 'a JSON file with the settings to change, shaped like "project show --json"')
  .option('--name <name>', 'project name')
  .option('--timezone <zone>', 'IANA time zone, e.g. Europe/Paris')
  .option('--points-expiry-days <days>', 'points expire this many days after they are earned; "off" to disable')
  .option('--welcome-bonus <points>', 'points a member gets once, when the widget first creates them')
  .option('--allow-origin <origins...>', 'let the widget run on these origins (https://shop.example), added to widget.allowedOrigins; "*" allows any')
  .option('--value-per-point <amount-and-currency...>', 'what a point is worth, e.g. 0.01 EUR (the Overview shows the liability in money); "off" to clear')
  .option('--json', 'print JSON')
  .action((options: { project: string; fromJson?: string; name?: string; timezone?: string; pointsExpiryDays?: string; welcomeBonus?: string;
    allowOrigin?: string[]; valuePerPoint?: string[]; json?: boolean },
    command: Command) => withStore(command, ({ db }) => {
    const patch: Record<string, unknown> = options.fromJson ? { ...(readJsonFile(options.fromJson) as Record<string, unknown>) } : {};
    if (options.name !== undefined) patch.name = options.name;
    if (options.timezone !== undefined) patch.timezone = options.timezone;
    if (options.pointsExpiryDays !== undefined) {
      patch.pointsExpiryDays = options.pointsExpiryDays === 'off' ? null : parsePositiveInt(options.pointsExpiryDays, '--points-expiry-days');
    }
    if (options.welcomeBonus !== undefined) patch.welcomeBonus = Number(options.welcomeBonus);
    if (options.allowOrigin !== undefined) {
      const current = getSettings(db, options.project).widget.allowedOrigins;
      patch.widget = { ...(patch.widget as object | undefined), allowedOrigins: [...new Set([...current, ...options.allowOrigin])] };
    }
    if (options.valuePerPoint !== undefined) patch.valuePerPoint = valuePerPoint(options.valuePerPoint);
    const view = updateSettings(db, options.project, validate(projectPatchBody, patch));
    if (options.json) return printJson(view);
    console.log(`Updated project ${view.id}.`);
  }));

/** `--value-per-point 0.01 EUR` (or `off`) as the setting; the project schema checks the amount and the code. */
function valuePerPoint(words: string[]): { amount: number; currency: string } | null {
  if (words.length === 1 && words[0] === 'off') return null;
  const [amount, currency] = words;
  if (words.length !== 2 || !/^\d+(\.\d+)?$/.test(amount!)) throw new Error(`--value-per-point takes an amount and a currency, e.g. 0.01 EUR, or "off" (got "${words.join(' ')}")`);
  return { amount: Number(amount), currency: currency!.toUpperCase() };
}
