import { Command } from 'commander';
import { atomically } from '../../src/db/transaction.ts';
import { createItem, findItemByKey, updateItem, type CatalogItem, type CatalogKind } from '../../src/domain/catalog/catalog-items.ts';
import { AppError, badRequest } from '../../src/shared/errors.ts';
import { isPlainObject } from '../../src/shared/objects.ts';
import { DEFAULT_SETTINGS, getSettings, updateSettings } from '../../src/domain/project/settings.ts';
import type { Db } from '../../src/db/connection.ts';
import { validate } from '../../src/shared/validate.ts';
import { CATALOGS } from '../../src/schemas/catalog.ts';
import { projectPatchBody } from '../../src/schemas/project.ts';
import { dbPath, withStore } from '../context.ts';
import { revealProjectSecrets } from '../secret-output.ts';
import type { Store } from '../../src/db/store.ts';
import { getProject, type CreatedProject } from '../../src/domain/project/projects.ts';
import { createDemoProject, demoProject } from '../../src/domain/widget/widget-demo.ts';
import { printJson } from '../output.ts';
import { demoCatalog, seedDemoMembers } from '../demo.ts';
import { readJsonFile } from './catalog.ts';

export interface SeedReport {
  created: number;
  updated: number;
  unchanged: number;
  /** createOnly: what was left as it was, and why (`rewards[2] "tote": …`, `project.welcomeBonus: …`). */
  skipped?: string[];
}

/**
 * upsert (a catalog file): items matched by key are updated, settings applied. createOnly (the
 * demo): nothing that exists is changed; items whose key, level or code is taken, items referring
 * to an item this run did not create, and settings already changed from their default are skipped.
 */
export type SeedMode = 'upsert' | 'createOnly';

/** Imports this many items or more and a progress line is printed every PROGRESS_EVERY items. */
const PROGRESS_EVERY = 50;

/**
 * `badgeKey: "x"` in a seed file stands for the id of the item with key "x" (`badgeId`). With
 * `createdIds`, only items created by this run may be referred to: the answer is then the key
 * field that names another item, so the caller skips this one.
 */
function resolveReferences(db: Db, kind: CatalogKind, projectId: string, item: Record<string, unknown>, where: string, createdIds?: Set<string>):
  Record<string, unknown> | { foreign: string } {
  const resolved = { ...item };
  for (const [field, target] of Object.entries(kind.references ?? {})) {
    const keyField = field.replace(/Id$/, 'Key');
    if (!target || !(keyField in resolved)) continue;
    const targetKind = CATALOGS.find((c) => c.kind.table === target.table)!.kind;
    const found = findItemByKey(db, targetKind, projectId, String(resolved[keyField]));
    if (!found) throw badRequest(`${where}: "${keyField}" names no ${target.noun} with key "${String(resolved[keyField])}"`);
    if (createdIds && !createdIds.has(found.id)) return { foreign: keyField };
    delete resolved[keyField];
    resolved[field] = found.id;
  }
  return resolved;
}

/** The settings of `patch` still at their default (createOnly applies only those); the others are reported. */
function unsetSettings(current: unknown, defaults: unknown, patch: Record<string, unknown>, path: string, skipped: string[]): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    const here = (current as Record<string, unknown>)?.[key];
    const base = (defaults as Record<string, unknown>)?.[key];
    if (isPlainObject(value) && isPlainObject(here)) {
      const inner = unsetSettings(here, base, value, `${path}.${key}`, skipped);
      if (Object.keys(inner).length > 0) kept[key] = inner;
    } else if (JSON.stringify(here) === JSON.stringify(value)) continue;
    else if (JSON.stringify(here) === JSON.stringify(base)) kept[key] = value;
    else skipped.push(`${path}.${key}: already set to ${JSON.stringify(here)}`);
  }
  return kept;
}

/** Same stored values? Dates compare as their ISO text, objects as their JSON. */
const unchanged = (kind: CatalogKind, existing: CatalogItem, input: Record<string, unknown>) =>
  Object.keys(kind.fields).every((field) => JSON.stringify(existing[field]) === JSON.stringify(input[field]));

/**
 * Imports a catalog file into the project in one transaction: items are matched by `key` (new
 * keys are created, changed items updated, identical ones left alone), so running it again
 * changes nothing. A "project" object, if present, is applied as settings.
 */
export function seedCatalog(db: Db, projectId: string, file: unknown, now: Date, progress: (line: string) => void = () => undefined,
  mode: SeedMode = 'upsert'): SeedReport {
  if (!isPlainObject(file)) throw badRequest('The catalog file must hold a JSON object.');
  const known = ['project', ...CATALOGS.map((c) => c.kind.listKey)];
  const unknown = Object.keys(file).find((name) => !known.includes(name));
  if (unknown) throw badRequest(`Unknown section "${unknown}"; a catalog file may hold ${known.join(', ')}.`);
  const createOnly = mode === 'createOnly';
  const report: SeedReport = { created: 0, updated: 0, unchanged: 0, ...(createOnly ? { skipped: [] } : {}) };
  const createdIds = new Set<string>();
  return atomically(db, () => {
    if (file.project !== undefined) {
      const patch = validate(projectPatchBody, file.project);
      const apply = createOnly ? unsetSettings(getSettings(db, projectId), DEFAULT_SETTINGS, patch, 'project', report.skipped!) : patch;
      if (Object.keys(apply).length > 0) updateSettings(db, projectId, apply);
    }
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
          const resolved = resolveReferences(db, kind, projectId, raw, where, createOnly ? createdIds : undefined);
          const existing = findItemByKey(db, kind, projectId, raw.key);
          if (createOnly && (existing || 'foreign' in resolved)) {
            report.skipped!.push(`${where} "${raw.key}": ${existing ? 'the key exists' : `"${String(resolved.foreign)}" names an item this seed did not create`}`);
          } else {
            const input = validate(create, resolved);
            if (!existing) {
              try {
                createdIds.add(createItem(db, kind, projectId, input, now).id);
                report.created++;
              } catch (error) {
                // A level number or promo code already taken: checked before anything is written.
                if (!createOnly || !(error instanceof AppError && error.status === 409)) throw error;
                report.skipped!.push(`${where} "${raw.key}": ${error.message}`);
              }
            } else if (unchanged(kind, existing, input)) report.unchanged++;
            else {
              updateItem(db, kind, projectId, existing.id, input, now);
              report.updated++;
            }
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

/** Members and live catalog items: a project in use, which the demo must not be mixed into unasked. */
function projectUse(db: Db, projectId: string): { members: number; items: number } {
  const count = (table: string) => (db.prepare(`SELECT count(*) AS n FROM ${table} WHERE project_id = ?${table === 'members' ? '' : ' AND archived_at IS NULL'}`)
    .get(projectId) as { n: number }).n;
  return { members: count('members'), items: CATALOGS.reduce((sum, { kind }) => sum + count(kind.table), 0) };
}

/**
 * The demo: without --project into the dedicated demo project (created on first use and marked,
 * so /demo serves it); with --project into that project, refused when it is in use unless --force.
 * Nothing that exists is changed (createOnly); demo members come only into a project that had none
 * and got the whole demo catalog, as their history needs it.
 */
function seedDemo(store: Store, projectId: string | undefined, force: boolean, now: Date) {
  const { db } = store;
  return atomically(db, () => {
    let created: CreatedProject | null = null;
    let project = projectId === undefined ? demoProject(db) : getProject(db, projectId);
    if (project === null) {
      created = createDemoProject(store.db, store.box, now);
      project = getProject(db, created.project.id);
    }
    const use = projectUse(db, project.id);
    const isDemo = demoProject(db)?.id === project.id;
    if (!isDemo && !force && (use.members > 0 || use.items > 0)) {
      throw new Error(`Project ${project.id} is in use (${use.members} members, ${use.items} catalog items): the demo would mix with its data. `
        + 'Run "punchcard seed --demo" without --project to fill the separate demo project, or add --force to add only what is missing (nothing existing is changed).');
    }
    const report = seedCatalog(db, project.id, demoCatalog(now), now, (line) => console.error(line), 'createOnly');
    const membersFit = use.members === 0 && report.skipped!.length === 0;
    if (!membersFit) report.skipped!.push(use.members > 0 ? 'demo members: the project already has members' : 'demo members: the demo catalog was not loaded whole');
    const demoMembers = membersFit ? seedDemoMembers(db, project.id, now) : 0;
    return { project: { id: project.id, name: project.name, demo: isDemo }, ...report, skipped: report.skipped!, demoMembers, newProject: created };
  });
}

export const seedCommand = new Command('seed')
  .description('import a catalog from a JSON file (idempotent, matched by key), or load the demo catalog and demo members')
  .option('--project <projectId>', 'project (required with --file; with --demo, the default is the separate demo project, created on first use)')
  .option('--file <catalog.json>', 'catalog file; see docs/catalog.md')
  .option('--demo', 'load the demo catalog (every quest mode, reward and game type, levels, badges, a 2x multiplier, promo codes) and demo members; never changes what exists')
  .option('--force', 'with --demo and --project: seed a project that already has members or items (only what is missing is added)')
  .option('--json', 'print JSON')
  .action((options: { project?: string; file?: string; demo?: boolean; force?: boolean; json?: boolean }, command: Command) => withStore(command, (store) => {
    if (Boolean(options.file) === Boolean(options.demo)) throw new Error('Give exactly one of --file FILE or --demo.');
    const now = new Date();
    if (options.file) {
      if (options.project === undefined) throw new Error('--file needs --project PROJECT_ID; "punchcard projects list" shows them.');
      const result = seedCatalog(store.db, options.project, readJsonFile(options.file), now, (line) => console.error(line));
      if (options.json) return printJson(result);
      return console.log(`Catalog: ${result.created} created, ${result.updated} updated, ${result.unchanged} unchanged.`);
    }
    const { newProject, ...result } = seedDemo(store, options.project, options.force === true, now);
    if (options.json) {
      const keys = newProject ? { secretKey: newProject.secretKey, publishableKey: newProject.publishableKey, widgetSecret: newProject.widgetSecret } : {};
      return printJson({ ...result, ...keys });
    }
    // The new demo project's keys, shown once as projects create shows them: to a terminal, else to a 0600 file, never into a log.
    const keyLines = newProject ? [`  publishable key  ${newProject.publishableKey}`, ...revealProjectSecrets(dbPath(command), newProject).lines] : [];
    console.log([
      `${newProject ? 'Created the demo project' : 'Seeded project'} "${result.project.name}" (${result.project.id}).`,
      `Catalog: ${result.created} created, ${result.skipped.length} skipped. Demo members added: ${result.demoMembers}.`,
      ...result.skipped.map((line) => `  skipped ${line}`),
      ...(newProject ? ['Its keys, shown only now:', ...keyLines] : []),
      ...(result.project.demo ? ['Serve the demo shop with: punchcard serve --demo'] : []),
    ].join('\n'));
  }, { create: options.demo === true }));
