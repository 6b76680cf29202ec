import { Command, Option } from 'commander';
import { issueKey, listKeys, revokeKey, type KeyType } from '../../src/domain/project/api-keys.ts';
import { dbPath, withStore } from '../context.ts';
import { revealSecrets } from '../secret-output.ts';
import { parseDuration, printJson, printTable } from '../output.ts';

const COLUMNS = ['id', 'type', 'prefix', 'createdAt', 'expiresAt', 'revokedAt'];

export const keysCommand = new Command('keys').description("a project's API keys (secret and publishable)");

keysCommand.command('create')
  .description('create an API key; the full key is printed once and only its hash is stored')
  .requiredOption('--project <projectId>', 'project the key belongs to')
  .addOption(new Option('--type <type>', 'secret (server API) or publishable (widget)').choices(['secret', 'publishable']).makeOptionMandatory())
  .option('--expires-in <duration>', 'expire after this long, e.g. 30d, 12h, 2w')
  .option('--json', 'print JSON')
  .action((options: { project: string; type: KeyType; expiresIn?: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const now = new Date();
    const expiresAt = options.expiresIn === undefined ? undefined : new Date(now.getTime() + parseDuration(options.expiresIn));
    const key = issueKey(db, { projectId: options.project, type: options.type, ...(expiresAt ? { expiresAt } : {}) }, now);
    if (options.json) return printJson(key);
    printTable([{ ...key }], COLUMNS);
    // A publishable key is public (it ships in the widget); only a secret key is kept off logs.
    const { lines } = revealSecrets(dbPath(command), key.id, [{ label: 'key', value: key.key }], options.type === 'publishable' || undefined);
    console.log(`\nThe key is shown only now:\n${lines.join('\n')}`);
  }));

keysCommand.command('list')
  .description('list a project\'s keys (display prefixes only, never the full key)')
  .requiredOption('--project <projectId>', 'project')
  .option('--json', 'print JSON')
  .action((options: { project: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const keys = listKeys(db, options.project);
    if (options.json) return printJson({ keys });
    printTable(keys.map((k) => ({ ...k })), COLUMNS);
  }));

keysCommand.command('revoke')
  .description('revoke a key; requests with it answer 401 Invalid API key from then on')
  .argument('<keyId>')
  .option('--json', 'print JSON')
  .action((keyId: string, options: { json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    const key = revokeKey(db, keyId, new Date());
    if (options.json) return printJson(key);
    console.log(`Revoked ${key.id} (${key.prefix}…) at ${key.revokedAt}`);
  }));
