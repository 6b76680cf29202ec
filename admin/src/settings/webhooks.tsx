import { useState } from 'preact/hooks';
import { api, query } from '../api.ts';
import { fill, formatDateTime, words } from '../i18n/words.ts';
import { navigate, withQuery } from '../router.ts';
import { allows, type PageProps } from '../session.ts';
import { CopyBlock } from '../ui/copy.tsx';
import { Filters, listParams } from '../ui/filters.tsx';
import { Field, Form, Submit, useForm } from '../ui/form.tsx';
import { useAction, useApi } from '../ui/load.ts';
import { Alert } from '../ui/notice.tsx';
import { DataTable, type Pagination } from '../ui/table.tsx';
import { EVENT_TYPES } from './events.ts';

interface Webhook { id: string; url: string; events: string[]; state: string; createdAt: string; failingSince: string | null; lastError: string | null }
interface Delivery {
  id: string; eventType: string; state: string; attempts: number; lastStatus: number | null; lastError: string | null;
  createdAt: string; nextAttemptAt: string | null; deliveredAt: string | null;
}

/** Webhook endpoints and their state; one endpoint's deliveries (`?webhook=`), replayed one by one; a disabled endpoint re-enabled. */
export function WebhookSettings({ project, query: search }: PageProps) {
  const path = `/projects/${encodeURIComponent(project.id)}/webhooks`;
  const webhooks = useApi<{ webhooks: Webhook[] }>(path);
  const action = useAction();
  const [secret, setSecret] = useState<string | null>(null);
  const owner = allows(project.role, 'owner');
  const w = words.settings.webhooks;
  const act = (method: string, to: string) => action.run(async () => {
    await api(method, to, method === 'DELETE' ? undefined : {});
    webhooks.reload();
  });
  const selected = webhooks.data?.webhooks.find((h) => h.id === search.get('webhook'));
  const form = useForm({ url: '', events: [] as string[] });
  const create = form.submit(async ({ url, events }) => {
    const made = await api<Webhook & { secret: string }>('POST', path, { url, events });
    setSecret(made.secret);
    form.reset({ url: '', events: [] });
    webhooks.reload();
    return undefined;
  });
  return (
    <>
      {(webhooks.error || action.failed) && <Alert>{webhooks.error?.message ?? action.failed}</Alert>}
      <DataTable caption={w.caption} rows={webhooks.data?.webhooks ?? []} rowKey={(h) => h.id} loading={webhooks.loading} columns={[
        { key: 'url', label: w.url, render: (h) => <code>{h.url}</code> },
        { key: 'events', label: w.events, render: (h) => h.events.join(', ') },
        { key: 'state', label: w.state, render: (h) => (w.states as Record<string, string>)[h.state] ?? h.state },
        { key: 'lastError', label: w.lastError, render: (h) => h.lastError ?? '' },
        { key: 'actions', label: w.actions, render: (h) => (
          <span class="inline-actions">
            <button type="button" onClick={() => navigate(withQuery({ webhook: h.id, state: null }))} aria-label={fill(w.deliveriesFor, { url: h.url })}>{w.deliveries}</button>
            {owner && h.state !== 'active' && <button type="button" onClick={() => act('POST', `${path}/${encodeURIComponent(h.id)}/enable`)}>{w.enable}</button>}
            {owner && <button type="button" class="danger" onClick={() => confirm(fill(w.deleteConfirm, { url: h.url })) && act('DELETE', `${path}/${encodeURIComponent(h.id)}`)}
              aria-label={fill(w.deleteFor, { url: h.url })}>{w.delete}</button>}
          </span>
        ) },
      ]} />
      {selected && <Deliveries path={`${path}/${encodeURIComponent(selected.id)}/deliveries`} webhook={selected} search={search} owner={owner} />}
      {owner && (
        <section class="card" aria-labelledby="new-webhook">
          <h2 id="new-webhook">{w.create}</h2>
          <Form form={form} onSubmit={create}>
            <Field form={form} name="url" type="url" label={w.url} hint={w.urlHint} required />
            <Field form={form} name="events" label={w.events} options={EVENT_TYPES.map((e) => [e, e] as const)} />
            <Submit form={form}>{w.createSubmit}</Submit>
          </Form>
          {secret && <div class="secret" role="status"><p><strong>{w.shownOnce}</strong></p><CopyBlock text={secret} label={w.secret} /></div>}
        </section>
      )}
    </>
  );
}

function Deliveries({ path, webhook, search, owner }: { path: string; webhook: Webhook; search: URLSearchParams; owner: boolean }) {
  const w = words.settings.webhooks;
  const list = listParams(search, ['state']);
  const deliveries = useApi<{ deliveries: Delivery[]; pagination: Pagination }>(`${path}${query({ state: list.state || 'all', limit: list.limit, offset: list.offset })}`);
  const action = useAction();
  const replay = (delivery: Delivery) => action.run(async () => {
    await api('POST', `${path}/${encodeURIComponent(delivery.id)}/replay`, {});
    deliveries.reload();
  });
  return (
    <section aria-labelledby="deliveries">
      <h2 id="deliveries">{fill(w.deliveriesOf, { url: webhook.url })}</h2>
      <Filters query={search} filters={[{ name: 'state', label: w.state, options: [['all', w.all], ['pending', w.pending], ['delivered', w.delivered], ['dead', w.dead]] }]} />
      {(deliveries.error || action.failed) && <Alert>{deliveries.error?.message ?? action.failed}</Alert>}
      <DataTable caption={w.deliveries} rows={deliveries.data?.deliveries ?? []} rowKey={(d) => d.id} pagination={deliveries.data?.pagination}
        loading={deliveries.loading} columns={[
          { key: 'createdAt', label: w.created, render: (d) => formatDateTime(d.createdAt) },
          { key: 'eventType', label: w.event },
          { key: 'state', label: w.state, render: (d) => (w.deliveryStates as Record<string, string>)[d.state] ?? d.state },
          { key: 'attempts', label: w.attempts, numeric: true, render: (d) => String(d.attempts) },
          { key: 'lastStatus', label: w.lastStatus, render: (d) => (d.lastStatus === null ? '' : String(d.lastStatus)) },
          { key: 'lastError', label: w.lastError, render: (d) => d.lastError ?? '' },
          { key: 'next', label: w.next, render: (d) => formatDateTime(d.deliveredAt ?? d.nextAttemptAt) },
          ...(owner ? [{ key: 'replay', label: w.actions, render: (d: Delivery) => (
            <button type="button" onClick={() => replay(d)} aria-label={fill(w.replayFor, { event: d.eventType, id: d.id })}>{w.replay}</button>
          ) }] : []),
        ]} />
    </section>
  );
}
