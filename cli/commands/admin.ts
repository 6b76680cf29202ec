import { Command, Option } from 'commander';
import type { Db } from '../../src/db/connection.ts';
import { allOperators, checkEmail, inviteOperator, removeOperator, resetOperator } from '../../src/domain/operators/operators.ts';
import { ROLES, type Role } from '../../src/domain/operators/roles.ts';
import { listProjects } from '../../src/domain/project/projects.ts';
import { demoProject } from '../../src/domain/widget/widget-demo.ts';
import { dbPath, withStore } from '../context.ts';
import { parseUrl, setting } from '../options.ts';
import { printJson, printTable } from '../output.ts';
import { revealSecrets } from '../secret-output.ts';

export const adminCommand = new Command('admin').description('the web admin\'s operators: invite, list, remove, reset (docs/admin.md)');

/** Where operators open the admin: the server's public URL (as `serve` reads it), else the default local address. */
function adminUrl(command: Command): string {
  const url = setting(command, 'publicUrl', parseUrl) ?? `http://localhost:${process.env.PUNCHCARD_PORT || '3000'}`;
  return `${url.replace(/\/+$/, '')}/admin`;
}

/** --project, or the one project there is (the demo shop aside); several need --project. */
function pickProject(db: Db, given: string | undefined): string {
  if (given !== undefined) return given;
  const demo = demoProject(db)?.id;
  const projects = listProjects(db).filter((project) => project.id !== demo);
  if (projects.length === 1) return projects[0]!.id;
  if (projects.length === 0) throw new Error('there is no project yet: start the server once (`punchcard serve`) or run `punchcard projects create --name …`');
  throw new Error(`there are ${projects.length} projects; say which with --project (${projects.map((project) => `${project.id} "${project.name}"`).join(', ')})`);
}

/** A one-time link is a secret: on a terminal (or with --json) it is printed; otherwise it goes to a new 0600 file beside the database. */
function printLink(command: Command, name: string, link: string, json: boolean, report: Record<string, unknown>, what: string): void {
  if (json) {
    printJson({ ...report, link });
    return;
  }
  const { lines } = revealSecrets(dbPath(command), name, [{ label: 'link', value: link }]);
  console.log(`${what} Send them this link (valid 24 hours, once):\n${lines.join('\n')}`);
}

const publicUrlOption = () => new Option('--public-url <url>', 'the server\'s public URL, for the link (as `serve --public-url`)').env('PUNCHCARD_PUBLIC_URL');

adminCommand.command('invite')
  .description('give EMAIL a role in a project; a new operator gets a one-time link (24 h) to choose a password of at least 12 characters')
  .argument('<email>', 'the operator\'s email')
  .addOption(new Option('--role <role>', 'owner (everything), staff (members, points, claims, catalog, widget look) or viewer (reads)')
    .choices([...ROLES]).makeOptionMandatory())
  .option('--project <projectId>', 'the project (default: the only one there is)')
  .addOption(publicUrlOption())
  .option('--json', 'print JSON')
  .action((email: string, options: { role: Role; project?: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const projectId = pickProject(db, options.project);
    command.setOptionValue('project', projectId); // the audit entry names it
    const { operator, token } = inviteOperator(db, { email: checkEmail(email), role: options.role, projectId }, new Date());
    const report = { operator, projectId };
    if (token === null) {
      if (options.json) return printJson({ ...report, link: null });
      console.log(`${operator.email} already has an account: they are ${options.role} of ${projectId} from their next request (${adminUrl(command)}).`);
      return;
    }
    printLink(command, `invite-${operator.id}`, `${adminUrl(command)}/invite/${token}`, options.json === true, report,
      `Invited ${operator.email} as ${options.role} of ${projectId}.`);
  }));

adminCommand.command('list')
  .description('list the operators, their roles per project, second factor and last sign-in')
  .option('--json', 'print JSON')
  .action((options: { json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const operators = allOperators(db);
    if (options.json) return printJson({ operators });
    printTable(operators.map((operator) => ({
      ...operator,
      roles: operator.roles.map((role) => `${role.projectId}:${role.role}${role.pending ? ' (invited)' : ''}`).join(', ') || '(none)',
      totp: operator.totpEnabled ? 'on' : 'off',
    })), ['email', 'name', 'roles', 'totp', 'lastSignInAt', 'id']);
  }));

adminCommand.command('remove')
  .description('delete the operator\'s account: their roles, sessions and links end at once')
  .argument('<email>')
  .option('--json', 'print JSON')
  .action((email: string, options: { json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const removed = removeOperator(db, email);
    if (options.json) return printJson({ removed });
    console.log(`Removed ${removed.email} (${removed.id}); their sessions ended.`);
  }));

adminCommand.command('reset')
  .description('a new one-time link for the operator: their password and second factor are cleared, every session ends')
  .argument('<email>')
  .addOption(publicUrlOption())
  .option('--json', 'print JSON')
  .action((email: string, options: { json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const { operator, token, sessionsEnded } = resetOperator(db, email, new Date());
    printLink(command, `reset-${operator.id}`, `${adminUrl(command)}/invite/${token}`, options.json === true, { operator, sessionsEnded },
      `Reset ${operator.email}: ${sessionsEnded} session(s) ended, password and second factor cleared.`);
  }));
