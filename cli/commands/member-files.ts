import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { type Command, Option } from 'commander';
import { exportMembers } from '../../src/domain/members/export.ts';
import { withStore } from '../context.ts';
import { openNewPrivateFile } from '../output.ts';
import { addImportCommand } from './member-import.ts';

type Format = 'csv' | 'jsonl';

/** The columns `members export` writes: the import fields it has, and lifetime points and the level's name (read and left unused by an import). */
const EXPORT_COLUMNS = ['externalId', 'email', 'name', 'balance', 'totalPointsEarned', 'level', 'levelName', 'joinedAt'] as const;

/** Writes text to the stream, waiting when it is full: a large export never piles up in memory. */
async function write(out: Writable, text: string): Promise<void> {
  if (!out.write(text)) await once(out, 'drain');
}

function addExport(members: Command): void {
  members.command('export')
    .description('write a project\'s members with balances and levels as CSV or JSON lines (what members import reads)')
    .requiredOption('--project <projectId>', 'project')
    .addOption(new Option('--format <format>', 'csv or jsonl').choices(['csv', 'jsonl']).default('csv'))
    .option('--output <file>', 'write to this new file (mode 0600: it holds personal data) instead of stdout')
    .action((options: { project: string; format: Format; output?: string }, command: Command) => withStore(command, async ({ db }) => {
      const { stringify } = await import('csv-stringify/sync');
      const out = options.output ? createWriteStream('', { fd: openNewPrivateFile(options.output) }) : process.stdout;
      if (options.format === 'csv') await write(out, stringify([], { header: true, columns: EXPORT_COLUMNS }));
      // Members are read in one transaction: a consistent snapshot even while the server takes writes.
      db.exec('BEGIN');
      try {
        for (const member of exportMembers(db, options.project)) {
          await write(out, options.format === 'csv'
            ? stringify([member], { columns: EXPORT_COLUMNS })
            : `${JSON.stringify(member)}\n`);
        }
      } finally {
        db.exec('COMMIT');
      }
      if (out !== process.stdout) {
        out.end();
        await once(out, 'finish');
      }
    }));
}

/** `punchcard members import` and `members export`: join the members command group. */
export function addMemberFiles(members: Command): void {
  addImportCommand(members);
  addExport(members);
}
