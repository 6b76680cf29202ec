import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { fill, formatDateTime, words } from '../i18n/words.ts';
import type { PageProps } from '../session.ts';
import { CopyBlock } from '../ui/copy.tsx';
import { Field, Form, Submit, useForm } from '../ui/form.tsx';
import { numberOrText } from '../ui/form-values.ts';
import { useAction, useApi } from '../ui/load.ts';
import { Alert } from '../ui/notice.tsx';
import { DataTable } from '../ui/table.tsx';

interface Key { id: string; type: 'secret' | 'publishable'; prefix: string; createdAt: string; expiresAt: string | null; revokedAt: string | null; lastUsedAt: string | null }

/** API keys (owners only): a new key's secret is shown here once, with a copy button; the list never holds one. */
export function KeySettings({ project }: PageProps) {
  const path = `/projects/${encodeURIComponent(project.id)}/keys`;
  const keys = useApi<{ keys: Key[] }>(path);
  const [created, setCreated] = useState<{ key: Key; secret: string } | null>(null);
  const action = useAction();
  const w = words.settings.keys;
  const form = useForm({ type: 'secret', expiresInDays: '' });
  const create = form.submit(async ({ type, expiresInDays }) => {
    const days = numberOrText(expiresInDays);
    setCreated(await api<{ key: Key; secret: string }>('POST', path, { type, ...(days === null ? {} : { expiresInDays: days }) }));
    keys.reload();
    return undefined;
  });
  const revoke = (key: Key) => confirm(fill(w.revokeConfirm, { prefix: key.prefix })) && action.run(async () => {
    await api('DELETE', `${path}/${encodeURIComponent(key.id)}`);
    keys.reload();
  });
  return (
    <>
      {(keys.error || action.failed) && <Alert>{keys.error?.message ?? action.failed}</Alert>}
      <DataTable caption={w.caption} rows={keys.data?.keys ?? []} rowKey={(k) => k.id} loading={keys.loading} columns={[
        { key: 'prefix', label: w.prefix, render: (k) => <code>{k.prefix}…</code> },
        { key: 'type', label: w.type, render: (k) => w.types[k.type] },
        { key: 'createdAt', label: w.created, render: (k) => formatDateTime(k.createdAt) },
        { key: 'expiresAt', label: w.expires, render: (k) => formatDateTime(k.expiresAt) || w.never },
        { key: 'lastUsedAt', label: w.lastUsed, render: (k) => formatDateTime(k.lastUsedAt) || w.never },
        { key: 'revokedAt', label: w.state, render: (k) => (k.revokedAt ? fill(w.revokedOn, { when: formatDateTime(k.revokedAt) }) : (
          <button type="button" onClick={() => revoke(k)} aria-label={fill(w.revokeFor, { prefix: k.prefix })}>{w.revoke}</button>
        )) },
      ]} />
      <section class="card" aria-labelledby="new-key">
        <h2 id="new-key">{w.create}</h2>
        <Form form={form} onSubmit={create}>
          <div class="row">
            <Field form={form} name="type" label={w.type} options={[['secret', w.types.secret], ['publishable', w.types.publishable]]} />
            <Field form={form} name="expiresInDays" label={w.expiresInDays} hint={w.expiresHint} inputMode="numeric" />
          </div>
          <Submit form={form}>{w.createSubmit}</Submit>
        </Form>
        {created && (
          <div class="secret" role="status">
            <p><strong>{w.shownOnce}</strong></p>
            <CopyBlock text={created.secret} label={w.secret} />
          </div>
        )}
      </section>
    </>
  );
}
