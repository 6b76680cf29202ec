import { Command } from 'commander';
import { createProject, listProjects, rotateWidgetSecret, updateProject } from '../../src/domain/project/projects.ts';
import { dbPath, withStore } from '../context.ts';
import { revealProjectSecrets, revealSecrets } from '../secret-output.ts';
import { parsePositiveInt, printJson, printTable } from '../output.ts';

export const projectsCommand = new Command('projects').description('the projects (tenants) themselves, each with its own keys, members, catalog and settings');

projectsCommand.command('create')
  .description('create a project with a secret key, a publishable key and a widget signing secret (creates the database if there is none; '
    + 'secrets go to stdout only on a terminal or with --json, otherwise to a new 0600 file beside the database)')
  .requiredOption('--name <name>', 'project name')
  .option('--json', 'print JSON')
  .action((options: { name: string; json?: boolean }, command: Command) => withStore(command, ({ db, box }) => {
    const created = createProject(db, box, { name: options.name }, new Date());
    if (options.json) return printJson(created);
    printTable([
      { field: 'project id', value: created.project.id },
      { field: 'name', value: created.project.name },
      { field: 'publishable key', value: created.publishableKey },
    ], ['field', 'value']);
    const { lines } = revealProjectSecrets(dbPath(command), created);
    console.log(`\nThe secret key and the widget secret are shown only now; store them somewhere safe:\n${lines.join('\n')}`);
  }, { create: true }));

projectsCommand.command('list')
  .description('list projects')
  .option('--json', 'print JSON')
  .action((options: { json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const projects = listProjects(db);
    if (options.json) return printJson({ projects });
    printTable(projects.map((p) => ({ ...p })), ['id', 'name', 'pointsExpiryDays', 'createdAt']);
  }));

projectsCommand.command('update')
  .description('change a project\'s name or points-expiry policy')
  .argument('<projectId>')
  .option('--name <name>', 'new name')
  .option('--points-expiry-days <days>', 'points expire this many days after they are earned; "off" to disable')
  .option('--json', 'print JSON')
  .action((projectId: string, options: { name?: string; pointsExpiryDays?: string; json?: boolean }, command: Command) =>
    withStore(command, ({ db }) => {
      const days = options.pointsExpiryDays;
      const project = updateProject(db, projectId, {
        ...(options.name === undefined ? {} : { name: options.name }),
        ...(days === undefined ? {} : { pointsExpiryDays: days === 'off' ? null : parsePositiveInt(days, '--points-expiry-days') }),
      });
      if (options.json) return printJson({ project });
      printTable([{ ...project }], ['id', 'name', 'pointsExpiryDays', 'createdAt']);
    }));

projectsCommand.command('rotate-widget-secret')
  .description('replace the widget signing secret (widgets signed with the old one stop working)')
  .argument('<projectId>')
  .option('--json', 'print JSON')
  .action((projectId: string, options: { json?: boolean }, command: Command) => withStore(command, ({ db, box }) => {
    const widgetSecret = rotateWidgetSecret(db, box, projectId);
    if (options.json) return printJson({ projectId, widgetSecret });
    const { lines } = revealSecrets(dbPath(command), projectId, [{ label: 'widget secret', value: widgetSecret }]);
    console.log(`New widget secret for ${projectId} (shown only now):\n${lines.join('\n')}`);
  }));
