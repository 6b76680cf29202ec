import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { withStore } from '../context.ts';

export const backupCommand = new Command('backup')
  .description('write a consistent copy of the database to FILE (safe while the server runs)')
  .argument('<file>', 'where to write the copy; must not exist yet')
  .action((file: string, _options: object, command: Command) => withStore(command, async ({ db }) => {
    if (existsSync(file)) throw new Error(`${file} already exists; choose a new file name`);
    const { totalPages } = await db.backup(file);
    console.log(`Backed up ${totalPages} pages to ${file}. Keep the master key (PUNCHCARD_MASTER_KEY or the .key file) separately.`);
  }));
