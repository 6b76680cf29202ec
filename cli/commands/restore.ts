import { Command } from 'commander';
import { restoreDatabase, restoreFromFile, type FileRestoreReport, type RestoreReport } from '../../src/replication/restore.ts';
import { dbPath } from '../context.ts';
import { printJson } from '../output.ts';

function parseTimestamp(text: string): Date {
  const moment = new Date(text);
  if (Number.isNaN(moment.getTime())) throw new Error(`--timestamp must be a date and time such as 2026-05-01T09:30:00Z (got "${text}")`);
  return moment;
}

interface RestoreFlags { from?: string; timestamp?: string; force?: boolean; json?: boolean }

/** A backup file or a replica, never both: one source per restore, so it is clear what was put in place. */
function restore(file: string | undefined, options: RestoreFlags, db: string): Promise<RestoreReport | FileRestoreReport> {
  const masterKey = process.env.PUNCHCARD_MASTER_KEY;
  if (file !== undefined && options.from !== undefined) throw new Error('restore takes a backup FILE or --from URL, not both');
  if (file !== undefined) {
    if (options.timestamp !== undefined) throw new Error('--timestamp needs --from: a backup file holds one moment only');
    return restoreFromFile({ file, db, force: options.force, masterKey });
  }
  if (options.from === undefined) throw new Error('restore needs a backup FILE (made by punchcard backup) or --from URL (a Litestream replica)');
  return restoreDatabase({
    from: options.from,
    db,
    timestamp: options.timestamp === undefined ? undefined : parseTimestamp(options.timestamp),
    force: options.force,
    masterKey,
  });
}

export const restoreCommand = new Command('restore')
  .description('restore the database (--db) from a backup FILE or a Litestream replica (--from), checking it before putting it in place')
  .argument('[file]', 'a file written by punchcard backup')
  .option('--from <url>', 'the replica URL, as given to serve --replicate')
  .option('--timestamp <time>', 'with --from: restore the database as it was at this moment (ISO 8601)')
  .option('--force', 'replace an existing database (stop the server first); the old one is kept as <db>.replaced-<time>')
  .option('--json', 'print JSON')
  .action(async (file: string | undefined, options: RestoreFlags, command: Command) => {
    const report = await restore(file, options, dbPath(command));
    if (options.json) printJson(report);
    else {
      const source = 'file' in report ? report.file : `${report.replica}${report.timestamp ? ` as of ${report.timestamp}` : ''}`;
      console.log(`Restored ${report.db} from ${source}.`);
      console.log(`Checked: SQLite integrity ok; ${report.migrated.length === 0 ? 'schema up to date' : `migrated (${report.migrated.join(', ')})`}; ledger consistent for ${report.members} member(s).`);
      if (report.replaced) console.log(`The database it replaced is kept at ${report.replaced}; delete it once you no longer need it.`);
      if (!report.keyProblem) console.log('Master key: matches the database.');
      else {
        // The data is in place: say what is left to do, not only what is wrong.
        console.log(`Master key: ${report.keyProblem}`);
        console.log(`So the restored data cannot be used yet: the server will not start on it. Take the key from your password manager (or the .key file `
          + `beside the database the copy came from), set PUNCHCARD_MASTER_KEY to it (or write it to ${report.db}.key, mode 0600), then check with: `
          + `punchcard doctor --db ${report.db}`);
      }
    }
    // The data is in place either way; a missing or wrong key is what still stops the server.
    if (report.keyProblem) process.exitCode = 1;
  });
