import { csvHref, query } from '../api.ts';
import { formatDateTime, formatNumber, words } from '../i18n/words.ts';
import { projectHref } from '../router.ts';
import type { PageProps } from '../session.ts';
import { Filters, listParams } from '../ui/filters.tsx';
import { Link } from '../ui/link.tsx';
import { useApi } from '../ui/load.ts';
import { Alert, PageTitle } from '../ui/notice.tsx';
import { DataTable, type Pagination } from '../ui/table.tsx';

/** How deep a page of members may reach by offset; past it the list pages on by cursor (docs/api.md, "Paging members"). */
const MEMBER_PAGE_REACH = 10_000;

export interface Member {
  id: string; externalId: string; email: string | null; name: string | null; points: number; totalPointsEarned: number;
  currentStreak: number; longestStreak: number; createdAt: string; level: number; levelName: string | null;
}

/** Members: found by id, email or name (the search index), sorted and paged by the server, exported as CSV. */
export default function MembersPage({ project, query: params }: PageProps) {
  const path = `/projects/${encodeURIComponent(project.id)}/members`;
  const list = listParams(params, ['search', 'cursor']);
  // A cursor page is asked for without an offset (the server refuses both).
  if (list.cursor) list.offset = null;
  const { data, error, loading } = useApi<{ members: Member[]; pagination: Pagination }>(`${path}${query(list)}`);
  const w = words.members;
  return (
    <>
      <PageTitle>{words.nav.members}</PageTitle>
      <Filters query={params} filters={[{ name: 'search', label: w.search, type: 'search' }]} />
      {error && <Alert>{error.message}</Alert>}
      <DataTable
        caption={w.caption}
        loading={loading}
        rows={data?.members ?? []}
        rowKey={(m) => m.id}
        pagination={data?.pagination}
        reach={MEMBER_PAGE_REACH}
        sort={{ field: list.sort ?? null, order: list.order === 'asc' ? 'asc' : 'desc' }}
        csv={csvHref(path, { search: list.search, sort: list.sort, order: list.order })}
        csvName="members.csv"
        columns={[
          { key: 'externalId', label: w.externalId, render: (m) => <Link href={projectHref(project.id, `members/${encodeURIComponent(m.externalId)}`)}>{m.externalId}</Link> },
          { key: 'name', label: w.name, render: (m) => m.name ?? '' },
          { key: 'email', label: w.email, render: (m) => m.email ?? '' },
          { key: 'points', label: w.points, sortable: true, numeric: true, render: (m) => formatNumber(m.points) },
          { key: 'totalPointsEarned', label: w.earned, sortable: true, numeric: true, render: (m) => formatNumber(m.totalPointsEarned) },
          { key: 'level', label: w.level, render: (m) => m.levelName ?? (m.level ? String(m.level) : '') },
          { key: 'createdAt', label: w.joined, sortable: true, render: (m) => formatDateTime(m.createdAt) },
        ]}
      />
    </>
  );
}
