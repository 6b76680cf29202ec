import { formatDateTime, words } from '../i18n/words.ts';
import type { PageProps } from '../session.ts';
import { useApi } from '../ui/load.ts';
import { Alert } from '../ui/notice.tsx';
import { DataTable } from '../ui/table.tsx';

interface Integrations {
  commerce: { stores: { id: string; siteUrl: string; connectedAt: string; lastDeliveryAt: string | null; state: string }[] };
  community: { configured: boolean; guildId: string | null; botRunning: boolean; linkedMembers: number };
}

/** WooCommerce stores and the Discord community: their state only (no secret reaches the browser). */
export function IntegrationSettings({ project }: PageProps) {
  const status = useApi<Integrations>(`/projects/${encodeURIComponent(project.id)}/integrations`);
  const w = words.settings.integrations;
  if (status.error) return <Alert>{status.error.message}</Alert>;
  if (!status.data) return <p role="status">{words.common.loading}</p>;
  const { commerce, community } = status.data;
  return (
    <>
      <DataTable caption={w.stores} rows={commerce.stores} rowKey={(s) => s.id} columns={[
        { key: 'siteUrl', label: w.site, render: (s) => <code>{s.siteUrl}</code> },
        { key: 'state', label: w.state },
        { key: 'connectedAt', label: w.connected, render: (s) => formatDateTime(s.connectedAt) },
        { key: 'lastDeliveryAt', label: w.lastDelivery, render: (s) => formatDateTime(s.lastDeliveryAt) || w.never },
      ]} />
      <section aria-labelledby="community">
        <h2 id="community">{w.community}</h2>
        {!community.configured ? <p>{w.notConfigured}</p> : (
          <dl class="facts">
            <dt>{w.guild}</dt><dd>{community.guildId}</dd>
            <dt>{w.bot}</dt><dd>{community.botRunning ? w.running : w.stopped}</dd>
            <dt>{w.linked}</dt><dd>{community.linkedMembers}</dd>
          </dl>
        )}
        <p class="muted">{w.cliHint}</p>
      </section>
    </>
  );
}
