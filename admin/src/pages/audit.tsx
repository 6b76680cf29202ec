import { csvHref, query } from '../api.ts';
import { formatDateTime, words } from '../i18n/words.ts';
import type { PageProps } from '../session.ts';
import { Filters, listParams } from '../ui/filters.tsx';
import { useApi } from '../ui/load.ts';
import { Alert, PageTitle } from '../ui/notice.tsx';
import { DataTable, type Pagination } from '../ui/table.tsx';

interface Entry {
  id: string; at: string; actor: { type: 'operator' | 'cli' | 'api'; id: string | null; label: string }; action: string; target: string | null; summary: unknown;
}

const FILTERS = ['actor', 'action', 'target', 'from', 'to'];

const summaryText = (summary: unknown) => (summary === null || summary === undefined ? '' : typeof summary === 'string' ? summary : JSON.stringify(summary));

/** Every change made in the admin, by the CLI or through the API: filtered and paged by the server, exported as CSV. */
export default function AuditPage({ project, query: search }: PageProps) {
  const path = `/projects/${encodeURIComponent(project.id)}/audit`;
  const list = listParams(search, FILTERS);
  const filters = Object.fromEntries(FILTERS.map((name) => [name, list[name]]));
  const { data, error, loading } = useApi<{ entries: Entry[]; pagination: Pagination }>(`${path}${query({ ...filters, limit: list.limit, offset: list.offset })}`);
  const w = words.audit;
  return (
    <>
      <PageTitle>{words.nav.audit}</PageTitle>
      <Filters query={search} filters={[
        { name: 'actor', label: w.actor }, { name: 'action', label: w.action }, { name: 'target', label: w.target },
        { name: 'from', label: w.from, type: 'date' }, { name: 'to', label: w.to, type: 'date' },
      ]} />
      {error && <Alert>{error.message}</Alert>}
      <DataTable caption={w.caption} loading={loading} rows={data?.entries ?? []} rowKey={(e) => e.id} pagination={data?.pagination}
        csv={csvHref(path, filters)} csvName="audit.csv" columns={[
          { key: 'at', label: w.at, render: (e) => formatDateTime(e.at) },
          { key: 'actor', label: w.actor, render: (e) => `${e.actor.label} (${w.actorTypes[e.actor.type] ?? e.actor.type})` },
          { key: 'action', label: w.action, render: (e) => <code>{e.action}</code> },
          { key: 'target', label: w.target, render: (e) => e.target ?? '' },
          { key: 'summary', label: w.summary, render: (e) => <span class="summary">{summaryText(e.summary)}</span> },
        ]} />
    </>
  );
}
