import { Fragment } from 'preact';
import { api } from '../api.ts';
import { formatDateTime, formatNumber, words } from '../i18n/words.ts';
import { allows, type PageProps } from '../session.ts';
import { Form, Submit, useForm } from '../ui/form.tsx';
import { useApi } from '../ui/load.ts';
import { Alert } from '../ui/notice.tsx';
import { DataTable } from '../ui/table.tsx';

interface Backups { backups: { file: string; bytes: number; createdAt: string }[]; replication: Record<string, unknown> | null }

const megabytes = (bytes: number) => `${formatNumber(Math.round((bytes / 1024 / 1024) * 10) / 10)} MB`;

/** Backups of the database file: the list, one taken now (owners), and the off-site replica's state. */
export function BackupSettings({ project }: PageProps) {
  const path = `/projects/${encodeURIComponent(project.id)}/backups`;
  const backups = useApi<Backups>(path);
  const w = words.settings.backups;
  const form = useForm({});
  const take = form.submit(async () => {
    await api('POST', path, {});
    backups.reload();
    return w.taken;
  });
  return (
    <>
      {backups.error && <Alert>{backups.error.message}</Alert>}
      {allows(project.role, 'owner') && <Form form={form} onSubmit={take} label={w.take}><Submit form={form}>{w.take}</Submit></Form>}
      <DataTable caption={w.caption} rows={backups.data?.backups ?? []} rowKey={(b) => b.file} loading={backups.loading} columns={[
        { key: 'file', label: w.file, render: (b) => <code>{b.file}</code> },
        { key: 'bytes', label: w.size, numeric: true, render: (b) => megabytes(b.bytes) },
        { key: 'createdAt', label: w.created, render: (b) => formatDateTime(b.createdAt) },
      ]} />
      <section aria-labelledby="replication">
        <h2 id="replication">{w.replication}</h2>
        {!backups.data ? null : backups.data.replication === null ? <p>{w.noReplication}</p> : (
          <dl class="facts">
            {Object.entries(backups.data.replication).map(([key, value]) => (
              <Fragment key={key}>
                <dt>{(w.replicationFields as Record<string, string>)[key] ?? key}</dt>
                <dd>{typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value) ? formatDateTime(value) : typeof value === 'object' ? JSON.stringify(value) : String(value)}</dd>
              </Fragment>
            ))}
          </dl>
        )}
      </section>
    </>
  );
}
