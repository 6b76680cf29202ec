import { Command, Option } from 'commander';
import { readSnapshot } from '../../src/db/transaction.ts';
import { POINTS_REPORT_COLUMNS, pointsReport } from '../../src/domain/analytics/points-report.ts';
import { withStore } from '../context.ts';
import { printJson, printTable } from '../output.ts';

export const reportCommand = new Command('report').description("the programme's figures, for finance and for operators");

reportCommand.command('points')
  .description('the points-accounting table: per day, points outstanding at its start and end and what was earned, reversed, redeemed, reimbursed and expired')
  .requiredOption('--project <projectId>', 'project')
  .requiredOption('--from <date>', "first day (YYYY-MM-DD, in the project's time zone)")
  .requiredOption('--to <date>', 'last day, included')
  .addOption(new Option('--format <format>', 'csv, table or json').choices(['csv', 'table', 'json']).default('table'))
  .action((options: { project: string; from: string; to: string; format: 'csv' | 'table' | 'json' }, command: Command) => withStore(command, async ({ db }) => {
    const report = readSnapshot(db, () => pointsReport(db, options.project, options.from, options.to));
    if (options.format === 'json') return printJson(report);
    if (options.format === 'table') return printTable(report.days.map((day) => ({ ...day })), [...POINTS_REPORT_COLUMNS]);
    const { stringify } = await import('csv-stringify/sync');
    process.stdout.write(stringify(report.days, { header: true, columns: [...POINTS_REPORT_COLUMNS] }));
  }));
