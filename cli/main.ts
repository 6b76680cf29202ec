import { Command, Option } from 'commander';
import { AppError } from '../src/shared/errors.ts';
import { terminalLines } from '../src/shared/terminal-text.ts';
import { VERSION } from '../src/shared/assets.ts';
import { adminCommand } from './commands/admin.ts';
import { backupCommand } from './commands/backup.ts';
import { catalogCommands } from './commands/catalog.ts';
import { addRaffleDraw, claimsCommand } from './commands/claims.ts';
import { doctorCommand, expireCommand, membersCommand, pointsCommand } from './commands/ledger.ts';
import { keysCommand } from './commands/keys.ts';
import { addMemberFiles } from './commands/member-files.ts';
import { addMemberPrivacy } from './commands/member-privacy.ts';
import { metricsCommand } from './commands/metrics.ts';
import { migrateCommand } from './commands/migrate.ts';
import { projectCommand } from './commands/project.ts';
import { projectsCommand } from './commands/projects.ts';
import { replicateCommand } from './commands/replicate.ts';
import { reportCommand } from './commands/report.ts';
import { restoreCommand } from './commands/restore.ts';
import { seedCommand } from './commands/seed.ts';
import { serveCommand } from './commands/serve.ts';
import { widgetCommand } from './commands/widget.ts';
import { webhooksCommand } from './commands/webhooks.ts';
import { communityCommand } from './commands/community.ts';
import { CREATING_COMMANDS, DEFAULT_DB } from './context.ts';

const program = new Command('punchcard')
  .description('Punchcard: self-hosted loyalty and gamification on one SQLite file')
  .version(VERSION, '-V, --version', 'print the version')
  .addOption(new Option('--db <path>', `SQLite database file; only ${CREATING_COMMANDS} create a new one`).env('PUNCHCARD_DB').default(DEFAULT_DB))
  .showHelpAfterError();

for (const command of [serveCommand, migrateCommand, projectsCommand, keysCommand, membersCommand, pointsCommand, expireCommand, doctorCommand, backupCommand,
  widgetCommand, webhooksCommand, replicateCommand, restoreCommand, projectCommand, ...catalogCommands, claimsCommand, seedCommand, communityCommand,
  metricsCommand, adminCommand, reportCommand]) {
  program.addCommand(command);
}

addMemberFiles(membersCommand);
addMemberPrivacy(membersCommand);
addRaffleDraw(catalogCommands.find((group) => group.name() === 'rewards')!);

// A group's line in `punchcard --help` ends with its commands, so what it does is never out of step with them.
for (const group of program.commands) {
  const names = group.commands.map((command) => command.name());
  if (names.length > 0) group.description(`${group.description()}: ${names.join(', ')}`);
}

// No top-level await: the single executable runs this bundle as CommonJS (Node's SEA has no ESM entry).
program.parseAsync().catch((error: unknown) => {
  // Errors a user can act on print as one line; anything else keeps its stack for a bug report.
  const known = error instanceof AppError || (error instanceof Error && !(error instanceof TypeError) && !(error instanceof RangeError));
  console.error(`punchcard: ${terminalLines(known ? (error as Error).message : (error as Error).stack ?? String(error))}`);
  process.exitCode = 1;
});
