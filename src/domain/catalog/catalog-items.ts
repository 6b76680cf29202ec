import type { Db } from '../../db/connection.ts';
import { cachedRowsChanged } from '../../db/cache-version.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { badRequest, conflict, notFound } from '../../shared/errors.ts';
import { newId } from '../../shared/ids.ts';
import type { Page } from '../../shared/page.ts';

/**
 * How a field is stored: `bool` as 0/1, `json` as JSON text, `time` as ISO 8601 text (it arrives
 * as a Date), the rest as they are. The column is the field's name in snake_case.
 */
export type ColumnType = 'text' | 'int' | 'real' | 'bool' | 'json' | 'time';

/** A catalog item as the API shows it: its fields plus the bookkeeping every kind shares. */
export type CatalogItem = Record<string, unknown> & {
  id: string;
  key: string | null;
  createdAt: string;
  updatedAt: string;
  archivedAt: string | null;
};

export interface CheckContext {
  db: Db;
  projectId: string;
  /** The item being updated; undefined on create. */
  id: string | undefined;
}

/**
 * One kind of catalog item: everything the generic list/create/read/update/archive needs.
 * Seven of these (src/domain/catalog/) serve the seven catalogs through one set of functions,
 * one route file and one CLI generator.
 */
export interface CatalogKind {
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
  fields: Record<string, ColumnType>;
  /** Fields unique among a project's live items besides `key`; `nocase` compares ignoring case. */
  unique?: { field: string; nocase?: boolean }[];
  /** Fields holding the id of another live catalog item of the project. */
  references?: Record<string, { table: string; noun: string }>;
  /** The fields bounding when the item applies; `active=true` lists only items applying now. */
  window?: { starts?: string; ends?: string };
  /** SQL ORDER BY for lists; creation order (rowid breaks ties within a millisecond) by default. */
  order?: string;
  /** Rules across fields, run on the whole item after a create or an update. Throws 400. */
  check?: (item: Record<string, unknown>, context: CheckContext) => void;
}

const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

const columnsOf = (kind: CatalogKind) => Object.keys(kind.fields).map(snake);

function encode(type: ColumnType, value: unknown): unknown {
  if (value === null || value === undefined) return null;
  if (type === 'bool') return value ? 1 : 0;
  if (type === 'json') return JSON.stringify(value);
  if (type === 'time') return value instanceof Date ? value.toISOString() : String(value);
  return value;
}

function decode(type: ColumnType, value: unknown): unknown {
  if (value === null) return null;
  if (type === 'bool') return value === 1;
  if (type === 'json') return JSON.parse(value as string) as unknown;
  return value;
}

/** The API view of a row of `kind`'s table. */
export function toItem(kind: CatalogKind, row: Record<string, unknown>): CatalogItem {
  const item: Record<string, unknown> = { id: row.id, key: row.key };
  for (const [field, type] of Object.entries(kind.fields)) item[field] = decode(type, row[snake(field)]);
  return { ...item, createdAt: row.created_at, updatedAt: row.updated_at, archivedAt: row.archived_at } as CatalogItem;
}

/** Catalog rows change rarely, and each connection caches the hot ones (src/db/cache-version.ts): every change says so. */
function touchCatalog(db: Db, projectId: string): void {
  if (stmt(db, 'SELECT 1 FROM projects WHERE id = ?').get(projectId) === undefined) throw notFound(`No project with id "${projectId}"`);
  cachedRowsChanged(db);
}

function row(db: Db, kind: CatalogKind, projectId: string, id: string): Record<string, unknown> | undefined {
  return stmt<Record<string, unknown>>(db, `SELECT * FROM ${kind.table} WHERE id = ? AND project_id = ?`).get(id, projectId);
}

/** The item, archived or not (history refers to archived items), or 404. */
export function getItem(db: Db, kind: CatalogKind, projectId: string, id: string): CatalogItem {
  const found = row(db, kind, projectId, id);
  if (!found) throw notFound(`No ${kind.noun} with id "${id}" in this project`);
  return toItem(kind, found);
}

export function findItemByKey(db: Db, kind: CatalogKind, projectId: string, key: string): CatalogItem | undefined {
  const found = stmt<Record<string, unknown>>(db, `SELECT * FROM ${kind.table} WHERE project_id = ? AND key = ? AND archived_at IS NULL`)
    .get(projectId, key);
  return found && toItem(kind, found);
}

/** SQL for "applies now": not archived, switched on (where the kind has isActive), inside its window. */
function activeCondition(kind: CatalogKind): string {
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

export function listItems(db: Db, kind: CatalogKind, projectId: string, query: ListQuery, now: Date): { items: CatalogItem[]; pagination: Page } {
  const conditions = ['project_id = @projectId'];
  if (query.active === true) conditions.push(activeCondition(kind));
  else if (query.active === false) conditions.push(`NOT (${activeCondition(kind)})${query.includeArchived ? '' : ' AND archived_at IS NULL'}`);
  else if (!query.includeArchived) conditions.push('archived_at IS NULL');
  const where = conditions.join(' AND ');
  const params = { projectId, now: now.toISOString(), limit: query.limit, offset: query.offset };
  const total = stmt<number>(db, `SELECT count(*) FROM ${kind.table} WHERE ${where}`).pluck().get(params)!;
  const rows = stmt<Record<string, unknown>>(db, `SELECT * FROM ${kind.table} WHERE ${where}
    ORDER BY ${kind.order ?? 'created_at, rowid'} LIMIT @limit OFFSET @offset`).all(params);
  return {
    items: rows.map((r) => toItem(kind, r)),
    pagination: { total, limit: query.limit, offset: query.offset, hasMore: query.offset + rows.length < total },
  };
}

/** Every live item of the kind, for in-memory caches and seeding. */
export function liveItems(db: Db, kind: CatalogKind, projectId: string): CatalogItem[] {
  return stmt<Record<string, unknown>>(db, `SELECT * FROM ${kind.table} WHERE project_id = ? AND archived_at IS NULL ORDER BY ${kind.order ?? 'created_at, rowid'}`)
    .all(projectId).map((r) => toItem(kind, r));
}

/** Uniqueness, references and cross-field rules, for the whole item as it would be stored. */
function checkItem(db: Db, kind: CatalogKind, projectId: string, item: Record<string, unknown>, id: string | undefined): void {
  for (const { field, nocase } of [{ field: 'key', nocase: false }, ...(kind.unique ?? [])]) {
    const value = item[field];
    if (value === null || value === undefined) continue;
    const clash = stmt(db, `SELECT 1 FROM ${kind.table} WHERE project_id = ? AND ${snake(field)} = ?${nocase ? ' COLLATE NOCASE' : ''}
      AND archived_at IS NULL AND id IS NOT ?`).get(projectId, value, id ?? null);
    if (clash) throw conflict(`Another ${kind.noun} of this project already has ${field} "${String(value)}".`);
  }
  for (const [field, target] of Object.entries(kind.references ?? {})) {
    const value = item[field];
    if (value === null || value === undefined) continue;
    const found = stmt(db, `SELECT 1 FROM ${target.table} WHERE id = ? AND project_id = ? AND archived_at IS NULL`).get(value, projectId);
    if (!found) throw notFound(`"${field}": no live ${target.noun} with id "${String(value)}" in this project`);
  }
  kind.check?.(item, { db, projectId, id });
}

/** Creates an item from validated input (every field present, defaults applied). */
export function createItem(db: Db, kind: CatalogKind, projectId: string, input: Record<string, unknown>, now: Date): CatalogItem {
  return atomically(db, () => {
    touchCatalog(db, projectId);
    checkItem(db, kind, projectId, input, undefined);
    const id = newId(kind.idPrefix);
    const columns = columnsOf(kind);
    const values = Object.entries(kind.fields).map(([field, type]) => encode(type, input[field]));
    const at = now.toISOString();
    stmt(db, `INSERT INTO ${kind.table} (id, project_id, key, ${columns.join(', ')}, created_at, updated_at)
      VALUES (?, ?, ?, ${columns.map(() => '?').join(', ')}, ?, ?)`).run(id, projectId, input.key ?? null, ...values, at, at);
    return getItem(db, kind, projectId, id);
  });
}

/**
 * Changes the given fields of a live item (null clears an optional one) and checks the result as
 * a whole, so a window cannot be made inverted one end at a time. Archived items are history: 409.
 */
export function updateItem(db: Db, kind: CatalogKind, projectId: string, id: string, changes: Record<string, unknown>, now: Date): CatalogItem {
  return atomically(db, () => {
    const current = getItem(db, kind, projectId, id);
    if (current.archivedAt !== null) throw conflict(`The ${kind.noun} "${id}" is archived; archived items cannot be changed.`);
    const fields = Object.keys(changes).filter((field) => changes[field] !== undefined && (field === 'key' || field in kind.fields));
    if (fields.length === 0) return current;
    const merged = { ...current, ...changes };
    checkItem(db, kind, projectId, merged, id);
    const assignments = fields.map((field) => `${snake(field)} = ?`);
    const values = fields.map((field) => (field === 'key' ? changes.key : encode(kind.fields[field]!, changes[field])));
    stmt(db, `UPDATE ${kind.table} SET ${[...assignments, 'updated_at = ?'].join(', ')} WHERE id = ? AND project_id = ?`)
      .run(...values, now.toISOString(), id, projectId);
    touchCatalog(db, projectId);
    return getItem(db, kind, projectId, id);
  });
}

/** Archives an item (DELETE). It stays readable by id and stops applying. Archiving twice is a no-op. */
export function archiveItem(db: Db, kind: CatalogKind, projectId: string, id: string, now: Date): CatalogItem {
  return atomically(db, () => {
    const current = getItem(db, kind, projectId, id);
    if (current.archivedAt !== null) return current;
    stmt(db, `UPDATE ${kind.table} SET archived_at = ?, updated_at = ? WHERE id = ? AND project_id = ?`)
      .run(now.toISOString(), now.toISOString(), id, projectId);
    touchCatalog(db, projectId);
    return getItem(db, kind, projectId, id);
  });
}

/** For cross-field rules: a window whose start is not before its end. */
export function checkWindow(item: Record<string, unknown>, starts: string, ends: string): void {
  const start = item[starts];
  const end = item[ends];
  if (start == null || end == null) return;
  if (new Date(start as string | Date).getTime() >= new Date(end as string | Date).getTime()) {
    throw badRequest(`"${starts}" must be before "${ends}".`);
  }
}
