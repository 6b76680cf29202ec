import { closeSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { eraseMember, exportMember } from '../../src/domain/members/privacy.ts';
import { withStore } from '../context.ts';
import { openNewPrivateFile, printJson } from '../output.ts';

/**
 * A shopper's privacy requests, answered from the shell as the API answers them: everything held
 * about one member (`GET /members/{externalId}/export`), and erasure (`DELETE /members/{externalId}`).
 */
export function addMemberPrivacy(members: Command): void {
  members.command('data')
    .description('everything held about one member (profile, transactions, badges, quests) as JSON: a shopper\'s access request')
    .argument('<externalId>', 'the member\'s externalId')
    .requiredOption('--project <projectId>', 'project')
    .option('--output <file>', 'write to this new file (mode 0600: it holds personal data) instead of stdout')
    .action((externalId: string, options: { project: string; output?: string }, command: Command) => withStore(command, ({ db }) => {
      const data = exportMember(db, options.project, externalId, new Date());
      if (!options.output) return printJson(data);
      const fd = openNewPrivateFile(options.output);
      try {
        writeFileSync(fd, `${JSON.stringify(data, null, 2)}\n`);
      } finally {
        closeSync(fd);
      }
      console.log(`Wrote ${externalId}'s data to ${options.output} (${data.transactions.length} transactions).`);
    }));

  members.command('erase')
    .description('erase one member\'s personal data for good; the ledger keeps their transactions, anonymised')
    .argument('<externalId>', 'the member\'s externalId')
    .requiredOption('--project <projectId>', 'project')
    .option('--yes', 'erase: it cannot be undone')
    .option('--json', 'print JSON')
    .action((externalId: string, options: { project: string; yes?: boolean; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
      if (!options.yes) {
        throw new Error(`erasing ${externalId} removes their name, email and other personal data for good; run again with --yes to do it`);
      }
      const result = eraseMember(db, options.project, externalId, new Date());
      if (options.json) return printJson(result);
      console.log(`Erased ${externalId}: personal data removed; their balance and transactions stay in the ledger under an anonymous id.`);
    }));
}
