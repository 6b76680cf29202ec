import * as v from 'valibot';
import type { Page } from '../../shared/page.ts';
import { queryInt } from '../../schemas/common.ts';

/** Every admin list: `?limit=` (1–100, default 50), `?offset=`, and `?format=csv` for every row that matches. */
export const listFields = {
  limit: v.optional(queryInt(1, 100), '50'),
  offset: v.optional(queryInt(0, Number.MAX_SAFE_INTEGER), '0'),
  format: v.optional(v.picklist(['json', 'csv'], 'must be json or csv'), 'json'),
};

/** A list that sorts: `?sort=` one of its fields, `?order=asc|desc`. */
export const sortFields = <const F extends string>(fields: readonly [F, ...F[]]) => ({
  sort: v.optional(v.picklist(fields, `must be one of ${fields.join(', ')}`)),
  order: v.optional(v.picklist(['asc', 'desc'], 'must be asc or desc')),
});

/** Tables that only answer CSV besides JSON (they are short and do not page). */
export const formatQuery = v.strictObject({ format: listFields.format });

/** Rows read per page while an export gathers every row: the domain's pages, in the route's one snapshot. */
const EXPORT_PAGE = 1000;
/** An export stops here; a larger table is exported with the CLI (`members export`). */
export const MAX_EXPORT_ROWS = 1_000_000;

const valueAt = (row: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((value, key) => (typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined), row);

/**
 * The rows as a CSV download (`<name>.csv`), one column per dotted path (`reward.name`), made by
 * csv-stringify: objects and arrays as JSON, and cells a spreadsheet would run as a formula
 * (=, +, -, @…) escaped. csv-stringify is loaded on the first export, not at start-up.
 */
export async function csvResponse(name: string, columns: string[], rows: unknown[]): Promise<Response> {
  const { stringify } = await import('csv-stringify/sync');
  const text = stringify(rows.map((row) => columns.map((path) => valueAt(row, path))), {
    header: true, columns, escape_formulas: true, cast: { object: (value) => JSON.stringify(value), boolean: (value) => String(value) },
  });
  return new Response(text, {
    headers: { 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${name}.csv"`, 'cache-control': 'no-store' },
  });
}

/** Every row a paged domain function gives, page after page (in the caller's snapshot, so they are consistent). */
function everyRow<T>(page: (limit: number, offset: number) => { items: T[]; pagination: Page }): T[] {
  const rows: T[] = [];
  for (let offset = 0; offset < MAX_EXPORT_ROWS; offset += EXPORT_PAGE) {
    const { items, pagination } = page(EXPORT_PAGE, offset);
    rows.push(...items);
    if (!pagination.hasMore || items.length === 0) break;
  }
  return rows;
}

export interface ListSpec<T> {
  /** The answer's key (`members`), and the download's name unless `file` says otherwise. */
  key: string;
  file?: string;
  columns: string[];
  /** A page of the list with the query's filters: the domain function. */
  page: (limit: number, offset: number) => { items: T[]; pagination: Page };
}

/** A list's answer: the requested page as `{<key>: [...], pagination}`, or with `format=csv` every matching row as CSV. */
export function listAnswer<T>(query: { limit: number; offset: number; format?: 'json' | 'csv' | undefined }, spec: ListSpec<T>): unknown {
  if (query.format === 'csv') return csvResponse(spec.file ?? spec.key, spec.columns, everyRow(spec.page));
  const { items, pagination } = spec.page(query.limit, query.offset);
  return { [spec.key]: items, pagination };
}

/** A short table that does not page: its JSON answer, or with `format=csv` its rows as CSV. */
export function tableAnswer(query: { format: 'json' | 'csv' }, key: string, columns: string[], rows: unknown[]): unknown {
  return query.format === 'csv' ? csvResponse(key, columns, rows) : { [key]: rows };
}
