import { Command } from 'commander';
import { backupDatabase } from '../../src/db/backup.ts';
import { withStore } from '../context.ts';
import { printJson } from '../output.ts';

export const backupCommand = new Command('backup')
  .description('write a consistent, checked copy of the database to FILE (mode 0600; safe while the server takes writes)')
  .argument('<file>', 'where to write the copy; must not exist yet, its folder must')
  .option('--json', 'print JSON')
  .action((file: string, options: { json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const report = backupDatabase(db, file);
    if (options.json) printJson(report);
    else console.log(`Backed up ${report.bytes} bytes to ${report.file} in ${report.ms} ms (integrity checked). Keep the master key (PUNCHCARD_MASTER_KEY or the .key file) separately.`);
  }));
