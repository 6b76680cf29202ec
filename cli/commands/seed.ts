import { Command } from 'commander';
import { atomically } from '../../src/db/transaction.ts';
import { createItem, findItemByKey, updateItem, type CatalogItem, type CatalogKind } from '../../src/domain/catalog.ts';
import { AppError, badRequest } from '../../src/domain/errors.ts';
import { isPlainObject } from '../../src/domain/objects.ts';
import { updateSettings } from '../../src/domain/settings.ts';
import type { Db } from '../../src/db/connection.ts';
import { validate } from '../../src/http/request.ts';
import { CATALOGS } from '../../src/http/schemas/catalog.ts';
import { projectPatchBody } from '../../src/http/schemas/project.ts';
import { withStore } from '../context.ts';
import { printJson } from '../output.ts';
import { demoCatalog, seedDemoMembers } from '../demo.ts';
import { readJsonFile } from './catalog.ts';

export interface SeedReport {
  created: number;
  updated: number;
  unchanged: number;
}

/** Imports this many items or more and a progress line is printed every PROGRESS_EVERY items. */
const PROGRESS_EVERY = 50;

/** `badgeKey: "x"` in a seed file stands for the id of the item with key "x" (`badgeId`). */
function resolveReferences(db: Db, kind: CatalogKind, projectId: string, item: Record<string, unknown>, where: string): Record<string, unknown> {
  const resolved = { ...item };
  for (const [field, target] of Object.entries(kind.references ?? {})) {
    const keyField = field.replace(/Id$/, 'Key');
    if (!(keyField in resolved)) continue;
    const targetKind = CATALOGS.find((c) => c.kind.table === target.table)!.kind;
    const found = findItemByKey(db, targetKind, projectId, String(resolved[keyField]));
    if (!found) throw badRequest(`${where}: "${keyField}" names no ${target.noun} with key "${String(resolved[keyField])}"`);
    delete resolved[keyField];
    resolved[field] = found.id;
  }
  return resolved;
}

/** Same stored values? Dates compare as their ISO text, objects as their JSON. */
const unchanged = (kind: CatalogKind, existing: CatalogItem, input: Record<string, unknown>) =>
  Object.keys(kind.fields).every((field) => JSON.stringify(existing[field]) === JSON.stringify(input[field]));

/**
 * Imports a catalog file into the project in one transaction: items are matched by `key` (new
 * keys are created, changed items updated, identical ones left alone), so running it again
 * changes nothing. A "project" object, if present, is applied as settings.
 */
export function seedCatalog(db: Db, projectId: string, file: unknown, now: Date, progress: (line: string) => void = () => undefined): SeedReport {
  if (!isPlainObject(file)) throw badRequest('The catalog file must hold a JSON object.');
  const known = ['project', ...CATALOGS.map((c) => c.kind.listKey)];
  const unknown = Object.keys(file).find((name) => !known.includes(name));
  if (unknown) throw badRequest(`Unknown section "${unknown}"; a catalog file may hold ${known.join(', ')}.`);
  const report: SeedReport = { created: 0, updated: 0, unchanged: 0 };
  return atomically(db, () => {
    if (file.project !== undefined) updateSettings(db, projectId, validate(projectPatchBody, file.project));
    const total = CATALOGS.reduce((sum, { kind }) => sum + (Array.isArray(file[kind.listKey]) ? (file[kind.listKey] as unknown[]).length : 0), 0);
    let done = 0;
    for (const { kind, create } of CATALOGS) {
      const items = file[kind.listKey];
      if (items === undefined) continue;
      if (!Array.isArray(items)) throw badRequest(`"${kind.listKey}" must be an array.`);
      items.forEach((raw: unknown, index) => {
        const where = `${kind.listKey}[${index}]`;
        if (!isPlainObject(raw) || typeof raw.key !== 'string') throw badRequest(`${where}: every item needs a "key" (text) to be matched by on the next import.`);
        try {
          const input = validate(create, resolveReferences(db, kind, projectId, raw, where));
          const existing = findItemByKey(db, kind, projectId, raw.key);
          if (!existing) {
            createItem(db, kind, projectId, input, now);
            report.created++;
          } else if (unchanged(kind, existing, input)) report.unchanged++;
          else {
            updateItem(db, kind, projectId, existing.id, input, now);
            report.updated++;
          }
        } catch (error) {
          if (error instanceof AppError && !error.message.startsWith(where)) throw new AppError(error.status, error.error, `${where} (key "${raw.key}"): ${error.message}`);
          throw error;
        }
        done++;
        if (total >= PROGRESS_EVERY && (done % PROGRESS_EVERY === 0 || done === total)) progress(`seed: ${done}/${total} items`);
      });
    }
    return report;
  });
}

export const seedCommand = new Command('seed')
  .description('import a catalog from a JSON file (idempotent, matched by key), or load the demo catalog and demo members')
  .requiredOption('--project <projectId>', 'project')
  .option('--file <catalog.json>', 'catalog file; see docs/catalog.md')
  .option('--demo', 'load the demo catalog (every quest mode, reward and game type, levels, badges, a 2x multiplier, promo codes) and demo members')
  .option('--json', 'print JSON')
  .action((options: { project: string; file?: string; demo?: boolean; json?: boolean }, command: Command) => withStore(command, ({ db }) => {
    if (Boolean(options.file) === Boolean(options.demo)) throw new Error('Give exactly one of --file FILE or --demo.');
    const now = new Date();
    const file = options.demo ? demoCatalog(now) : readJsonFile(options.file!);
    const result = atomically(db, () => {
      const report = seedCatalog(db, options.project, file, now, (line) => console.error(line));
      return options.demo ? { ...report, demoMembers: seedDemoMembers(db, options.project, now) } : report;
    });
    if (options.json) return printJson(result);
    console.log(`Catalog: ${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged.`
      + ('demoMembers' in result ? ` Demo members added: ${result.demoMembers}.` : ''));
  }));
