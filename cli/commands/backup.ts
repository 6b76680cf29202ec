import { existsSync, statSync } from 'node:fs';
import { Command } from 'commander';
import { backupDatabase, backupIntoFolder, type FolderBackupReport } from '../../src/db/backup.ts';
import { dbPath, withStore } from '../context.ts';
import { parsePositiveInt, printJson } from '../output.ts';

interface BackupFlags { keep?: string; keepWeekly?: string; json?: boolean }

const isFolder = (target: string) => target.endsWith('/') || (existsSync(target) && statSync(target).isDirectory());

export const backupCommand = new Command('backup')
  .description('write a consistent, checked copy of the database (mode 0600; safe while the server takes writes) to a new FILE, or into a FOLDER '
    + 'under a name of the time, keeping the copies you ask for there')
  .argument('<target>', 'a new FILE (its folder must exist), or an existing FOLDER: the copy is then named <db name>-<UTC time>.db, e.g. punchcard-2026-05-01T031500.123Z.db')
  .option('--keep <n>', "with a FOLDER: keep the N newest copies of this database there (named as this command names them; as the admin's Backups page does) and delete older ones (other files are never touched)")
  .option('--keep-weekly <n>', 'with a FOLDER: also keep the newest copy of each of the N latest weeks (UTC, Monday to Sunday)')
  .option('--json', 'print JSON')
  .action((target: string, options: BackupFlags, command: Command) => withStore(command, ({ db }) => {
    const retention = {
      keep: options.keep === undefined ? undefined : parsePositiveInt(options.keep, '--keep'),
      keepWeekly: options.keepWeekly === undefined ? undefined : parsePositiveInt(options.keepWeekly, '--keep-weekly'),
    };
    const folder = isFolder(target);
    if (!folder && (retention.keep !== undefined || retention.keepWeekly !== undefined)) {
      throw new Error(`--keep and --keep-weekly need a FOLDER, not a file (${target}): in a folder, backup names the copies itself and prunes only those`);
    }
    const report: ReturnType<typeof backupDatabase> & Partial<FolderBackupReport> = folder
      ? backupIntoFolder(db, dbPath(command), target, new Date(), retention) : backupDatabase(db, target);
    if (options.json) return printJson(report);
    console.log(`Backed up ${report.bytes} bytes to ${report.file} in ${report.ms} ms (integrity checked). Keep the master key (PUNCHCARD_MASTER_KEY or the .key file) separately.`);
    if (report.pruned !== undefined) {
      console.log(`${report.kept} cop${report.kept === 1 ? 'y' : 'ies'} of this database in the folder${report.pruned.length > 0 ? `; deleted the older ${report.pruned.join(', ')}` : ''}.`);
    }
  }));
