import { Command } from 'commander';
import { restoreDatabase } from '../../src/replication/restore.ts';
import { dbPath } from '../context.ts';
import { printJson } from '../output.ts';

function parseTimestamp(text: string): Date {
  const moment = new Date(text);
  if (Number.isNaN(moment.getTime())) throw new Error(`--timestamp must be a date and time such as 2026-05-01T09:30:00Z (got "${text}")`);
  return moment;
}

export const restoreCommand = new Command('restore')
  .description('restore the database (--db) from a Litestream replica, then check it before putting it in place')
  .requiredOption('--from <url>', 'the replica URL, as given to serve --replicate')
  .option('--timestamp <time>', 'restore the database as it was at this moment (ISO 8601)')
  .option('--force', 'replace an existing database (stop the server first)')
  .option('--json', 'print JSON')
  .action(async (options: { from: string; timestamp?: string; force?: boolean; json?: boolean }, command: Command) => {
    const report = await restoreDatabase({
      from: options.from,
      db: dbPath(command),
      timestamp: options.timestamp === undefined ? undefined : parseTimestamp(options.timestamp),
      force: options.force,
      masterKey: process.env.PUNCHCARD_MASTER_KEY,
    });
    if (options.json) printJson(report);
    else {
      console.log(`Restored ${report.db} from ${report.replica}${report.timestamp ? ` as of ${report.timestamp}` : ''}.`);
      console.log(`Checked: SQLite integrity ok; ${report.migrated.length === 0 ? 'schema up to date' : `migrated (${report.migrated.join(', ')})`}; ledger consistent for ${report.members} member(s).`);
      console.log(report.keyProblem ?? 'Master key: matches the database.');
    }
    // The data is in place either way; a missing or wrong key is what still stops the server.
    if (report.keyProblem) process.exitCode = 1;
  });
