import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { archiveItem, createItem, listItems, updateItem, type CatalogItem, type CatalogKind, type ColumnType } from '../../src/domain/catalog/catalog-items.ts';
import { validate } from '../../src/shared/validate.ts';
import { CATALOGS } from '../../src/schemas/catalog.ts';
import { withStore } from '../context.ts';
import { printJson, printTable } from '../output.ts';

const kebab = (field: string) => field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

const HINTS: Record<ColumnType, string> = {
  text: 'text', int: 'whole number', real: 'number', bool: 'true or false', json: 'JSON', time: 'ISO 8601 date-time',
};

/** A flag's text as the JSON value the schema expects; the schema then says what is wrong with it. */
function parseFlag(type: ColumnType, text: string, flag: string): unknown {
  if (text === 'null') return null;
  if ((type === 'int' || type === 'real') && text.trim() !== '' && !Number.isNaN(Number(text))) return Number(text);
  if (type === 'bool' && (text === 'true' || text === 'false')) return text === 'true';
  if (type === 'json') {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new Error(`--${flag} must be JSON (got ${text})`);
    }
  }
  return text;
}

export function readJsonFile(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as unknown;
  } catch (error) {
    throw new Error(`Cannot read JSON from ${path}: ${(error as Error).message}`);
  }
}

/** The item's fields from `--from-json FILE` and the field flags (flags win). */
function itemInput(kind: CatalogKind, options: Record<string, string | undefined>): Record<string, unknown> {
  const input: Record<string, unknown> = options.fromJson ? { ...(readJsonFile(options.fromJson) as Record<string, unknown>) } : {};
  if (options.key !== undefined) input.key = options.key === 'null' ? null : options.key;
  for (const [field, type] of Object.entries(kind.fields)) {
    const text = options[field];
    if (text !== undefined) input[field] = parseFlag(type, text, kebab(field));
  }
  return input;
}

/** What --help needs of a field's valibot schema. */
interface SchemaShape {
  type: string;
  wrapped?: SchemaShape;
  pipe?: readonly SchemaShape[];
  options?: readonly unknown[];
  item?: SchemaShape;
  entries?: Record<string, SchemaShape>;
}

/**
 * The values a field takes, read from its schema, for --help: a choice's options (a reward's
 * `type`), a JSON array's or object's choices (a multiplier's `sources`, a badge's `criteria`).
 */
function valuesHint(schema: SchemaShape): string | undefined {
  if (schema.wrapped) return valuesHint(schema.wrapped);
  const root = schema.pipe?.[0] ?? schema;
  if (root.type === 'picklist') return `one of ${root.options?.join(', ')}`;
  if (root.type === 'array' && root.item) {
    const item = valuesHint(root.item);
    return item && `a JSON array, each ${item}`;
  }
  if ((root.type === 'object' || root.type === 'strict_object') && root.entries) {
    const fields = Object.entries(root.entries).map(([name, entry]) => {
      const hint = valuesHint(entry);
      return hint ? `${name} (${hint})` : name;
    });
    return `a JSON object: ${fields.join(', ')}`;
  }
  return undefined;
}

function withFieldOptions(command: Command, kind: CatalogKind): Command {
  command.option('--from-json <file>', 'read the item (or the changes) from a JSON file; flags override it');
  command.option('--key <key>', 'stable key, matched by "punchcard seed --file" ("null" clears it)');
  const entries: Record<string, SchemaShape> = kind.schema.entries;
  for (const [field, type] of Object.entries(kind.fields)) {
    const values = entries[field] && valuesHint(entries[field]);
    command.option(`--${kebab(field)} <value>`, `${field} (${values ?? HINTS[type]}; "null" clears)`);
  }
  return command.option('--json', 'print JSON');
}

const labelField = (kind: CatalogKind) => ('name' in kind.fields ? 'name' : 'code');

function printItems(kind: CatalogKind, items: CatalogItem[]): void {
  const columns = ['id', 'key', ...(kind.path === 'levels' ? ['level'] : []), labelField(kind), ...['completionMode', 'type', 'rarity', 'multiplier', 'points', 'pointsCost', 'minTotalPointsEarned'].filter((field) => field in kind.fields), 'archivedAt'];
  printTable(items, columns);
}

/** `punchcard quests|rewards|badges|games|promo|multipliers|levels list|create|update|archive`, one generator for all seven. */
export const catalogCommands: Command[] = CATALOGS.map(({ kind, create, update }) => {
  const group = new Command(kind.command ?? kind.path).description(`a project's ${kind.noun}s`);

  group.command('list')
    .description(`list live ${kind.noun}s`)
    .requiredOption('--project <projectId>', 'project')
    .option('--active', 'only those that apply now')
    .option('--all', 'include archived ones')
    .option('--limit <n>', 'at most this many (1-100)', '100')
    .option('--json', 'print JSON')
    .action((options: { project: string; active?: boolean; all?: boolean; limit: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
      const limit = Math.min(Math.max(Number.parseInt(options.limit, 10) || 100, 1), 100);
      const { items, pagination } = listItems(db, kind, options.project, { limit, offset: 0, active: options.active, includeArchived: options.all }, new Date());
      if (options.json) return printJson({ [kind.listKey]: items, pagination });
      printItems(kind, items);
    }));

  withFieldOptions(group.command('create').description(`create a ${kind.noun}`).requiredOption('--project <projectId>', 'project'), kind)
    .action((options: Record<string, string | undefined>, command: Command) => withStore(command, ({ db }) => {
      const item = createItem(db, kind, options.project!, validate(create, itemInput(kind, options)), new Date());
      if (options.json) return printJson(item);
      console.log(`Created ${kind.noun} ${item.id}.`);
    }));

  withFieldOptions(group.command('update').description(`change a ${kind.noun}'s fields`).argument('<id>').requiredOption('--project <projectId>', 'project'), kind)
    .action((id: string, options: Record<string, string | undefined>, command: Command) => withStore(command, ({ db }) => {
      const item = updateItem(db, kind, options.project!, id, validate(update, itemInput(kind, options)), new Date());
      if (options.json) return printJson(item);
      console.log(`Updated ${kind.noun} ${item.id}.`);
    }));

  group.command('archive')
    .description(`archive a ${kind.noun}: it stays readable by id and no longer applies`)
    .argument('<id>')
    .requiredOption('--project <projectId>', 'project')
    .option('--json', 'print JSON')
    .action((id: string, options: { project: string; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
      const item = archiveItem(db, kind, options.project, id, new Date());
      if (options.json) return printJson(item);
      console.log(`Archived ${kind.noun} ${item.id}.`);
    }));

  return group;
});
