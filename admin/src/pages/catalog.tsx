import { csvHref, query } from '../api.ts';
import { fieldLabel, optionLabel } from '../catalog/fields.tsx';
import { kindOf, KINDS } from '../catalog/kinds.ts';
import { KindTabs } from '../catalog/tabs.tsx';
import { formatDateTime, formatNumber, words } from '../i18n/words.ts';
import { projectHref } from '../router.ts';
import { allows, type PageProps } from '../session.ts';
import { Filters, listParams } from '../ui/filters.tsx';
import { Link } from '../ui/link.tsx';
import { useApi } from '../ui/load.ts';
import { Alert, PageTitle } from '../ui/notice.tsx';
import { DataTable, type Pagination } from '../ui/table.tsx';

type Item = Record<string, unknown> & { id: string; isActive?: boolean; archivedAt: string | null };

/** Which items the list shows: the API's `active` and `includeArchived`. */
const SHOW = { live: {}, active: { active: 'true' }, inactive: { active: 'false' }, all: { includeArchived: 'true' } } as const;

const cell = (value: unknown) => {
  if (typeof value === 'number') return formatNumber(value);
  if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)) return formatDateTime(value);
  if (typeof value === 'string') return optionLabel(value);
  return value === null || value === undefined ? '' : String(value);
};

/** A kind's items: listed and paged by the server, each a link to its form; staff may add one. */
export default function CatalogPage({ project, params, query: search }: PageProps) {
  const kind = kindOf(params.kind) ?? KINDS[0]!;
  const path = `/projects/${encodeURIComponent(project.id)}/catalog/${kind.path}`;
  const show = (search.get('show') ?? 'live') as keyof typeof SHOW;
  const filter = SHOW[show] ?? SHOW.live;
  const list = listParams(search);
  const { data, error, loading } = useApi<Record<string, Item[]> & { pagination: Pagination }>(`${path}${query({ limit: list.limit, offset: list.offset, ...filter })}`);
  const w = words.catalog;
  const name = w.kindNames[kind.path];
  return (
    <>
      <PageTitle actions={allows(project.role, 'staff') && (
        <Link class="button primary" href={projectHref(project.id, `catalog/${kind.path}/new`)}>{w.add[kind.path]}</Link>
      )}>{words.nav.catalog}</PageTitle>
      <KindTabs projectId={project.id} current={kind.path} />
      <Filters query={search} filters={[{ name: 'show', label: w.show, options: Object.keys(SHOW).map((key) => [key, w.shows[key as keyof typeof SHOW]] as const) }]} />
      {error && <Alert>{error.message}</Alert>}
      <DataTable
        caption={name}
        loading={loading}
        rows={data?.[kind.listKey] ?? []}
        rowKey={(item) => item.id}
        pagination={data?.pagination}
        csv={csvHref(path, filter)}
        csvName={`${kind.path}.csv`}
        columns={[
          { key: kind.title, label: fieldLabel(kind.title), render: (item) => (
            <Link href={projectHref(project.id, `catalog/${kind.path}/${encodeURIComponent(item.id)}`)}>{String(item[kind.title] ?? item.id)}</Link>
          ) },
          ...kind.columns.map((column) => ({ key: column, label: fieldLabel(column), numeric: typeof data?.[kind.listKey]?.[0]?.[column] === 'number', render: (item: Item) => cell(item[column]) })),
          { key: 'status', label: w.status, render: (item) => (item.archivedAt ? w.archived : item.isActive === false ? w.inactive : w.active) },
        ]}
      />
    </>
  );
}
