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

/** A list's paging as the API answers it; `next`, a cursor to the page after this one (members, newest first). */
export interface Pagination { total: number; limit: number; offset: number; hasMore: boolean; next?: string }

interface TableProps<R> {
  caption: string;
  columns: Column<R>[];
  rows: R[];
  rowKey: (row: R) => string;
  /** The list's paging from the server; the pager moves `?offset=` in the address. */
  pagination?: Pagination;
  /**
   * How deep `?offset=` may page (the members' 10,000); past it the pager follows the server's
   * cursor (`?cursor=`, with `?page=` for the rows' numbers), or says why it cannot.
   */
  reach?: number;
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
export function DataTable<R>({ caption, columns, rows, rowKey, pagination, reach, sort, csv, csvName, loading }: TableProps<R>) {
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
        {pagination && <Pager pagination={pagination} reach={reach} />}
        {csv && <a class="button" href={csv} download={csvName}>{words.table.csv}</a>}
      </div>
    </div>
  );
}

function Pager({ pagination: { total, limit, offset, hasMore, next }, reach = Infinity }: { pagination: Pagination; reach?: number | undefined }) {
  const query = new URLSearchParams(location.search);
  // On a cursor's page the server answers offset 0: the page's number (kept in the address) says where it is.
  const byCursor = query.has('cursor');
  const page = byCursor ? Math.max(1, Number(query.get('page')) || 1) : Math.floor(offset / limit) + 1;
  const start = (page - 1) * limit;
  const from = total === 0 ? 0 : start + 1;
  const to = Math.min(start + limit, total);
  const offsetPage = (number: number) => withQuery({ offset: (number - 1) * limit || null, cursor: null, page: null });
  const withinReach = (number: number) => number * limit <= reach;
  const following = !hasMore ? null : withinReach(page + 1) && !byCursor ? offsetPage(page + 1)
    : next ? withQuery({ cursor: next, page: page + 1, offset: null }) : null;
  // Back from a cursor's page: by offset while within reach, else the way the operator came.
  const previous = () => (withinReach(page - 1) ? navigate(offsetPage(page - 1)) : history.back());
  return (
    <nav class="pager" aria-label={words.table.pages}>
      <span>{fill(words.table.showing, { from: formatNumber(from), to: formatNumber(to), total: formatNumber(total) })}</span>
      <button type="button" disabled={page === 1} onClick={previous}>{words.table.previous}</button>
      <button type="button" disabled={following === null} onClick={() => following && navigate(following)}>{words.table.next}</button>
      {hasMore && following === null && <span class="muted">{words.table.beyondReach}</span>}
    </nav>
  );
}
