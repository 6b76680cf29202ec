import * as v from 'valibot';
import type { Db } from '../../db/connection.ts';
import { cachedRowsChanged } from '../../db/cache-version.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { badRequest, conflict, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import { type Page, pageOf } from '../../shared/page.ts';
import { itemKey } from './item-fields.ts';

/**
 * How a field is stored: `bool` as 0/1, `json` as JSON text, the rest as they are; `int`, `real`
 * and `time` tell the CLI how to read a flag. Read from the field's schema (see columnType). The
 * column is the field's name in snake_case.
 */
export type ColumnType = 'text' | 'int' | 'real' | 'bool' | 'json' | 'time';

/** The fields the server keeps on every item; a client never sends them. */
export const SERVER_FIELDS = ['id', 'createdAt', 'updatedAt', 'archivedAt'] as const;
type ServerField = (typeof SERVER_FIELDS)[number];

/**
 * An item's schema: its kind's fields between the bookkeeping every kind shares, in the order the
 * API shows them. Each field is written as a client may send it: `rule` (required),
 * `v.optional(rule, default)`, or `v.optional(v.nullable(rule), null)` (optional, null clears it).
 * The request schemas are made from it (src/schemas/catalog.ts), the domain type inferred from it.
 */
export const catalogItem = <const E extends v.ObjectEntries>(fields: E) => v.strictObject({
  id: v.string(),
  key: v.optional(v.nullable(itemKey), null),
  ...fields,
  createdAt: v.string(),
  updatedAt: v.string(),
  archivedAt: v.nullable(v.string()),
});

/** The schema of an item of any kind. */
export type ItemSchema = v.StrictObjectSchema<v.ObjectEntries, undefined>;
/** An item of any kind, as code that serves every kind sees it: the shared fields typed, the kind's not. */
export type CatalogItem = v.InferOutput<ReturnType<typeof catalogItem<Record<never, never>>>> & Record<string, unknown>;
/** The item type a kind's schema infers; CatalogItem for code that serves every kind. */
export type ItemOf<S extends ItemSchema> = ItemSchema extends S ? CatalogItem : v.InferOutput<S>;
/** An item as created: every field a client may set, defaults applied. */
export type Draft<S extends ItemSchema> = Omit<ItemOf<S>, ServerField>;
type FieldOf<S extends ItemSchema> = Exclude<keyof Draft<S>, 'key'> & string;

export interface CheckContext {
  db: Db;
  projectId: string;
  /** The item being updated; undefined on create. */
  id: string | undefined;
}

/**
 * One kind of catalog item: everything the generic list/create/read/update/archive needs.
 * Seven of these (src/domain/catalog/*-kind.ts, listed in kinds.ts) serve the seven catalogs
 * through one set of functions, one route file and one CLI generator.
 */
export interface CatalogKind<S extends ItemSchema = ItemSchema> {
  schema: S;
  /** The path under /api/v1 and the CLI command group, e.g. `promo-codes`. */
  path: string;
  /** The CLI command group when it differs from the path (`promo`). */
  command?: string;
  /** The property that holds the list in a list response, e.g. `promoCodes`. */
  listKey: string;
  /** What one item is called in messages, e.g. `promo code`. */
  noun: string;
  table: string;
  idPrefix: string;
  /** The kind's own fields (neither `key` nor the server's), each with how it is stored. */
  fields: Record<string, ColumnType>;
  /** Fields unique among a project's live items besides `key`; `nocase` compares ignoring case. */
  unique?: { field: string; nocase?: boolean }[];
  /** Fields holding the id of another live catalog item of the project. */
  references?: Partial<Record<string, { table: string; noun: string }>>;
  /** The fields bounding when the item applies; `active=true` lists only items applying now. */
  window?: { starts?: string; ends?: string };
  /** SQL ORDER BY for lists; creation order (rowid breaks ties within a millisecond) by default. */
  order?: string;
  /** Rules across fields, run on the whole item after a create or an update. Throws 400. */
  check?(item: Draft<S>, context: CheckContext): void;
}

/** The part of a schema's description that says how a value is stored. */
interface SchemaShape {
  type: string;
  wrapped?: SchemaShape;
  pipe?: readonly SchemaShape[];
}

/** The schema's type and the types of its pipe's actions, nested pipes flattened. */
const steps = (schema: SchemaShape): string[] =>
  schema.pipe ? schema.pipe.flatMap((step, index) => (index === 0 ? steps(step) : [step.type])) : [schema.type];

/** How a field is stored, read from its schema: booleans, objects and arrays, timestamps, numbers, the rest text. */
function columnType(schema: SchemaShape): ColumnType {
  if (schema.wrapped) return columnType(schema.wrapped);
  const types = steps(schema);
  if (types[0] === 'boolean') return 'bool';
  if (types[0] === 'array' || types[0] === 'object' || types[0] === 'strict_object') return 'json';
  if (types.includes('iso_timestamp')) return 'time';
  if (types[0] === 'number') return types.includes('integer') ? 'int' : 'real';
  return 'text';
}

const SHARED_FIELDS = new Set<string>(['key', ...SERVER_FIELDS]);

/** A kind's description as its module writes it, the field names it gives checked against the schema. */
type KindSpec<S extends ItemSchema> = Omit<CatalogKind<S>, 'schema' | 'fields' | 'unique' | 'references' | 'window'> & {
  unique?: { field: FieldOf<S>; nocase?: boolean }[];
  references?: { [F in FieldOf<S>]?: { table: string; noun: string } };
  window?: { starts?: FieldOf<S>; ends?: FieldOf<S> };
};

/** A kind from its item schema and its description; the columns are read from the schema. */
export function defineKind<S extends ItemSchema>(schema: S, kind: KindSpec<S>): CatalogKind<S> {
  const fields = Object.entries(schema.entries).filter(([field]) => !SHARED_FIELDS.has(field)).map(([field, entry]) => [field, columnType(entry)] as const);
  return { schema, fields: Object.fromEntries(fields), ...kind };
}

type Row = Record<string, unknown>;

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const columnsOf = (kind: Pick<CatalogKind, 'fields'>) => Object.keys(kind.fields).map(snake);

function encode(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'bool') return value ? 1 : 0;
  if (type === 'json') return JSON.stringify(value);
  return value;
}

function decode(type: ColumnType, value: unknown): unknown {
  if (value === null) return null;
  if (type === 'bool') return value === 1;
  if (type === 'json') return JSON.parse(value as string) as unknown;
  return value;
}

/** The API view of a row of `kind`'s table. */
export function toItem<S extends ItemSchema>(kind: CatalogKind<S>, row: Row): ItemOf<S> {
  const item: Row = { id: row.id, key: row.key };
  for (const [field, type] of Object.entries(kind.fields)) item[field] = decode(type, row[snake(field)]);
  item.createdAt = row.created_at;
  item.updatedAt = row.updated_at;
  item.archivedAt = row.archived_at;
  // Where a row becomes a typed item: its fields are the schema's entries, each decoded by its column type.
  return item as ItemOf<S>;
}

/** Catalog rows change rarely, and each connection caches the hot ones (src/db/cache-version.ts): every change says so. */
function touchCatalog(db: Db, projectId: string): void {
  if (stmt(db, 'SELECT 1 FROM projects WHERE id = ?').get(projectId) === undefined) throw notFound(`No project with id "${projectId}"`);
  cachedRowsChanged(db);
}

/** The item's row, archived or not (history refers to archived items), or 404. */
function requireRow(db: Db, kind: Pick<CatalogKind, 'table' | 'noun'>, projectId: string, id: string): Row {
  const found = stmt<Row>(db, `SELECT * FROM ${kind.table} WHERE id = ? AND project_id = ?`).get(id, projectId);
  if (!found) throw notFound(`No ${kind.noun} with id "${id}" in this project`);
  return found;
}

/** The item, archived or not, or 404. */
export function getItem<S extends ItemSchema>(db: Db, kind: CatalogKind<S>, projectId: string, id: string): ItemOf<S> {
  return toItem(kind, requireRow(db, kind, projectId, id));
}

export function findItemByKey<S extends ItemSchema>(db: Db, kind: CatalogKind<S>, projectId: string, key: string): ItemOf<S> | undefined {
  const found = stmt<Row>(db, `SELECT * FROM ${kind.table} WHERE project_id = ? AND key = ? AND archived_at IS NULL`).get(projectId, key);
  return found && toItem(kind, found);
}

/** SQL for "applies now": not archived, switched on (where the kind has isActive), inside its window. */
function activeCondition<S extends ItemSchema>(kind: CatalogKind<S>): string {
  const parts = ['archived_at IS NULL'];
  if ('isActive' in kind.fields) parts.push('is_active = 1');
  if (kind.window?.starts) parts.push(`(${snake(kind.window.starts)} IS NULL OR ${snake(kind.window.starts)} <= @now)`);
  if (kind.window?.ends) parts.push(`(${snake(kind.window.ends)} IS NULL OR ${snake(kind.window.ends)} > @now)`);
  return parts.join(' AND ');
}

export interface ListQuery {
  limit: number;
  offset: number;
  /** true: only items that apply now; false: only items that do not. */
  active?: boolean | undefined;
  includeArchived?: boolean | undefined;
}

export function listItems<S extends ItemSchema>(db: Db, kind: CatalogKind<S>, projectId: string, query: ListQuery, now: Date):
  { items: ItemOf<S>[]; pagination: Page } {
  const conditions = ['project_id = @projectId'];
  if (query.active === true) conditions.push(activeCondition(kind));
  else if (query.active === false) conditions.push(`NOT (${activeCondition(kind)})${query.includeArchived ? '' : ' AND archived_at IS NULL'}`);
  else if (!query.includeArchived) conditions.push('archived_at IS NULL');
  const where = conditions.join(' AND ');
  const params = { projectId, now: now.toISOString(), limit: query.limit, offset: query.offset };
  const total = stmt<number>(db, `SELECT count(*) FROM ${kind.table} WHERE ${where}`).pluck().get(params)!;
  const rows = stmt<Row>(db, `SELECT * FROM ${kind.table} WHERE ${where}
    ORDER BY ${kind.order ?? 'created_at, rowid'} LIMIT @limit OFFSET @offset`).all(params);
  return {
    items: rows.map((r) => toItem(kind, r)),
    pagination: pageOf(total, query, rows.length),
  };
}

/** Every live item of the kind, for in-memory caches and seeding. */
export function liveItems<S extends ItemSchema>(db: Db, kind: CatalogKind<S>, projectId: string): ItemOf<S>[] {
  return stmt<Row>(db, `SELECT * FROM ${kind.table} WHERE project_id = ? AND archived_at IS NULL ORDER BY ${kind.order ?? 'created_at, rowid'}`)
    .all(projectId).map((r) => toItem(kind, r));
}

/** Uniqueness, references and cross-field rules, for the whole item as it would be stored. */
function checkItem<S extends ItemSchema>(db: Db, kind: CatalogKind<S>, projectId: string, item: Draft<S>, id: string | undefined): void {
  const values: Row = item;
  for (const { field, nocase } of [{ field: 'key', nocase: false }, ...(kind.unique ?? [])]) {
    const value = values[field];
    if (value === null || value === undefined) continue;
    const clash = stmt(db, `SELECT 1 FROM ${kind.table} WHERE project_id = ? AND ${snake(field)} = ?${nocase ? ' COLLATE NOCASE' : ''}
      AND archived_at IS NULL AND id IS NOT ?`).get(projectId, value, id ?? null);
    if (clash) throw conflict(`Another ${kind.noun} of this project already has ${field} "${String(value)}".`);
  }
  for (const [field, target] of Object.entries(kind.references ?? {})) {
    const value = values[field];
    if (!target || value === null || value === undefined) continue;
    const found = stmt(db, `SELECT 1 FROM ${target.table} WHERE id = ? AND project_id = ? AND archived_at IS NULL`).get(value, projectId);
    if (!found) throw notFound(`"${field}": no live ${target.noun} with id "${String(value)}" in this project`);
  }
  kind.check?.(item, { db, projectId, id });
}

/** Creates an item from validated input (every field present, defaults applied). */
export function createItem<S extends ItemSchema>(db: Db, kind: CatalogKind<S>, projectId: string, input: Draft<S>, now: Date): ItemOf<S> {
  return atomically(db, () => {
    touchCatalog(db, projectId);
    checkItem(db, kind, projectId, input, undefined);
    const values: Row = input;
    const id = newId(kind.idPrefix);
    const columns = columnsOf(kind);
    const at = now.toISOString();
    stmt(db, `INSERT INTO ${kind.table} (id, project_id, key, ${columns.join(', ')}, created_at, updated_at)
      VALUES (?, ?, ?, ${columns.map(() => '?').join(', ')}, ?, ?)`)
      .run(id, projectId, values.key ?? null, ...Object.entries(kind.fields).map(([field, type]) => encode(type, values[field])), at, at);
    return getItem(db, kind, projectId, id);
  });
}

/**
 * Changes the given fields of a live item (null clears an optional one) and checks the result as
 * a whole, so a window cannot be made inverted one end at a time. Archived items are history: 409.
 */
export function updateItem<S extends ItemSchema>(db: Db, kind: CatalogKind<S>, projectId: string, id: string, changes: Partial<Draft<S>>, now: Date):
  ItemOf<S> {
  return atomically(db, () => {
    const found = requireRow(db, kind, projectId, id);
    if (found.archived_at !== null) throw conflict(`The ${kind.noun} "${id}" is archived; archived items cannot be changed.`);
    const current = toItem(kind, found);
    const patch: Row = changes;
    const fields = Object.keys(patch).filter((field) => patch[field] !== undefined && (field === 'key' || field in kind.fields));
    if (fields.length === 0) return current;
    checkItem(db, kind, projectId, { ...current, ...changes }, id);
    const assignments = fields.map((field) => `${snake(field)} = ?`);
    const values = fields.map((field) => (field === 'key' ? patch.key : encode(kind.fields[field]!, patch[field])));
    stmt(db, `UPDATE ${kind.table} SET ${[...assignments, 'updated_at = ?'].join(', ')} WHERE id = ? AND project_id = ?`)
      .run(...values, now.toISOString(), id, projectId);
    touchCatalog(db, projectId);
    return getItem(db, kind, projectId, id);
  });
}

/** Archives an item (DELETE). It stays readable by id and stops applying. Archiving twice is a no-op. */
export function archiveItem<S extends ItemSchema>(db: Db, kind: CatalogKind<S>, projectId: string, id: string, now: Date): ItemOf<S> {
  return atomically(db, () => {
    const found = requireRow(db, kind, projectId, id);
    if (found.archived_at !== null) return toItem(kind, found);
    stmt(db, `UPDATE ${kind.table} SET archived_at = ?, updated_at = ? WHERE id = ? AND project_id = ?`)
      .run(now.toISOString(), now.toISOString(), id, projectId);
    touchCatalog(db, projectId);
    return getItem(db, kind, projectId, id);
  });
}

/** For cross-field rules: a window whose start is not before its end. */
export function checkWindow<F extends string>(item: Partial<Record<F, string | null>>, starts: F, ends: F): void {
  const start = item[starts];
  const end = item[ends];
  if (start == null || end == null) return;
  if (new Date(start).getTime() >= new Date(end).getTime()) throw badRequest(`"${starts}" must be before "${ends}".`);
}
