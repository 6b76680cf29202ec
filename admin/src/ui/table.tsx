import type { ComponentChildren } from 'preact';
import { words, fill, formatNumber } from '../i18n/words.ts';
import { navigate, withQuery } from '../router.ts';
import { ScrollTable } from './scroll.tsx';

export interface Column<R> {
  key: string;
  label: string;
  render?: (row: R) => ComponentChildren;
  /** The server sorts by this column (`?sort=<key>&order=`). */
  sortable?: boolean;
  numeric?: boolean;
}

export interface Pagination { total: number; limit: number; offset: number; hasMore: boolean }

interface TableProps<R> {
  caption: string;
  columns: Column<R>[];
  rows: R[];
  rowKey: (row: R) => string;
  /** The list's paging from the server; the pager moves `?offset=` in the address. */
  pagination?: Pagination;
  /** The sort in the address; a sortable column's header changes it. */
  sort?: { field: string | null; order: 'asc' | 'desc' };
  /** The CSV of every row the filters match (`?format=csv`). */
  csv?: string;
  csvName?: string;
  loading?: boolean;
}

/**
 * A table of rows the server pages, sorts and filters; scrolls sideways by itself on a narrow
 * screen (a focusable region, so the keyboard scrolls it too). Sorting and paging change the
 * address, and the page asks the server again.
 */
export function DataTable<R>({ caption, columns, rows, rowKey, pagination, sort, csv, csvName, loading }: TableProps<R>) {
  const sortBy = (key: string) => {
    const order = sort?.field === key && sort.order === 'desc' ? 'asc' : 'desc';
    navigate(withQuery({ sort: key, order }));
  };
  return (
    <div class="table-block">
      <ScrollTable caption={caption} busy={loading}>
        <thead>
          <tr>
            {columns.map((column) => {
              const current = sort?.field === column.key ? sort.order : null;
              return (
                <th key={column.key} scope="col" class={column.numeric ? 'num' : undefined}
                  aria-sort={current === 'asc' ? 'ascending' : current === 'desc' ? 'descending' : undefined}>
                  {column.sortable && sort ? (
                    <button type="button" class="sort" onClick={() => sortBy(column.key)}>
                      {column.label}<span aria-hidden="true">{current === 'asc' ? ' ▲' : current === 'desc' ? ' ▼' : ' ↕'}</span>
                    </button>
                  ) : column.label}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr><td colSpan={columns.length} class="empty">{loading ? words.common.loading : words.table.empty}</td></tr>
          ) : rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((column) => (
                <td key={column.key} class={column.numeric ? 'num' : undefined}>
                  {column.render ? column.render(row) : String((row as Record<string, unknown>)[column.key] ?? '')}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </ScrollTable>
      <div class="table-foot">
        {pagination && <Pager pagination={pagination} />}
        {csv && <a class="button" href={csv} download={csvName}>{words.table.csv}</a>}
      </div>
    </div>
  );
}

function Pager({ pagination: { total, limit, offset, hasMore } }: { pagination: Pagination }) {
  const from = total === 0 ? 0 : offset + 1;
  const to = Math.min(offset + limit, total);
  return (
    <nav class="pager" aria-label={words.table.pages}>
      <span>{fill(words.table.showing, { from: formatNumber(from), to: formatNumber(to), total: formatNumber(total) })}</span>
      <button type="button" disabled={offset === 0} onClick={() => navigate(withQuery({ offset: Math.max(0, offset - limit) || null }))}>{words.table.previous}</button>
      <button type="button" disabled={!hasMore} onClick={() => navigate(withQuery({ offset: offset + limit }))}>{words.table.next}</button>
    </nav>
  );
}
