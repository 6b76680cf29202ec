import { useState } from 'preact/hooks';
import { api, csvHref, query } from '../api.ts';
import { fill, formatDateTime, formatNumber, plural, words } from '../i18n/words.ts';
import { projectHref } from '../router.ts';
import { allows, type PageProps } from '../session.ts';
import { Field, Form, Submit, useForm } from '../ui/form.tsx';
import { numberOrText } from '../ui/form-values.ts';
import { Filters, listParams } from '../ui/filters.tsx';
import { Link } from '../ui/link.tsx';
import { useAction, useApi } from '../ui/load.ts';
import { Alert, PageTitle } from '../ui/notice.tsx';
import { DataTable, type Pagination } from '../ui/table.tsx';

interface Claim {
  id: string; reward: { id: string; name: string; type: string }; member: { externalId: string }; pointsSpent: number;
  couponCode?: string; status: string; createdAt: string; fulfilledAt: string | null;
}

interface Reward { id: string; name: string; type: string }

/** Rewards the shop hands over itself: their claims wait for staff to mark them fulfilled (a raffle's entries wait for its draw instead). */
const FULFILLED_BY_HAND = ['PHYSICAL', 'CUSTOM'];
const fulfillable = (claim: Claim) => FULFILLED_BY_HAND.includes(claim.reward.type) && (claim.status === 'PENDING' || claim.status === 'SHIPPED');

/** Rewards members claimed: the pending ones to fulfil (ship, hand over), the fulfilled, and raffle draws. */
export default function ClaimsPage({ project, query: search }: PageProps) {
  const base = `/projects/${encodeURIComponent(project.id)}`;
  const list = listParams(search, ['status', 'rewardId']);
  const filters = { status: list.status || 'pending', rewardId: list.rewardId };
  const claims = useApi<{ claims: Claim[]; pagination: Pagination }>(`${base}/claims${query({ ...filters, limit: list.limit, offset: list.offset })}`);
  const rewards = useApi<{ rewards: Reward[] }>(`${base}/catalog/rewards?limit=100`);
  const action = useAction();
  const staff = allows(project.role, 'staff');
  const w = words.claims;
  const fulfil = (claim: Claim) => action.run(async () => {
    await api('POST', `${base}/claims/${encodeURIComponent(claim.id)}/fulfil`, {});
    claims.reload();
  });
  return (
    <>
      <PageTitle>{words.nav.claims}</PageTitle>
      <Filters query={search} filters={[
        { name: 'status', label: w.status, options: [['pending', w.pending], ['fulfilled', w.fulfilled], ['all', w.all]] },
        { name: 'rewardId', label: w.reward, options: [['', w.anyReward], ...(rewards.data?.rewards ?? []).map((r) => [r.id, r.name] as const)] },
      ]} />
      {(claims.error || action.failed) && <Alert>{claims.error?.message ?? action.failed}</Alert>}
      <DataTable
        caption={w.caption}
        loading={claims.loading}
        rows={claims.data?.claims ?? []}
        rowKey={(c) => c.id}
        pagination={claims.data?.pagination}
        csv={csvHref(`${base}/claims`, filters)}
        csvName="claims.csv"
        columns={[
          { key: 'createdAt', label: w.date, render: (c) => formatDateTime(c.createdAt) },
          { key: 'member', label: w.member, render: (c) => <Link href={projectHref(project.id, `members/${encodeURIComponent(c.member.externalId)}`)}>{c.member.externalId}</Link> },
          { key: 'reward', label: w.reward, render: (c) => c.reward.name },
          { key: 'pointsSpent', label: w.points, numeric: true, render: (c) => formatNumber(c.pointsSpent) },
          { key: 'status', label: w.status, render: (c) => words.claimStatus[c.status as keyof typeof words.claimStatus] ?? c.status },
          { key: 'couponCode', label: w.coupon, render: (c) => c.couponCode ?? '' },
          { key: 'fulfilledAt', label: w.fulfilledAt, render: (c) => formatDateTime(c.fulfilledAt) },
          ...(staff ? [{ key: 'action', label: w.action, render: (c: Claim) => (fulfillable(c) ? (
            <button type="button" onClick={() => fulfil(c)} aria-label={fill(w.fulfilFor, { reward: c.reward.name, member: c.member.externalId })}>{w.fulfil}</button>
          ) : c.status === 'ENTERED' ? <span class="muted">{w.awaitsDraw}</span> : null) }] : []),
        ]}
      />
      {/* Once the rewards are in: the form starts on the first raffle. */}
      {staff && rewards.data && <Draw base={base} raffles={rewards.data.rewards.filter((r) => r.type === 'RAFFLE')} onDrawn={claims.reload} />}
    </>
  );
}

/** Draws a raffle's winners among its entries. */
function Draw({ base, raffles, onDrawn }: { base: string; raffles: Reward[]; onDrawn: () => void }) {
  const w = words.claims;
  const form = useForm({ rewardId: raffles[0]?.id ?? '', winners: '1' });
  const [winners, setWinners] = useState<{ claimId: string; externalId: string }[] | null>(null);
  const draw = form.submit(async ({ rewardId, winners: count }) => {
    const result = await api<{ winners: { claimId: string; externalId: string }[] }>('POST', `${base}/rewards/${encodeURIComponent(rewardId as string)}/draw`, { winners: numberOrText(count) });
    setWinners(result.winners);
    onDrawn();
    return plural(w.drawn, result.winners.length);
  });
  if (raffles.length === 0) return null;
  return (
    <section class="card" aria-labelledby="draw">
      <h2 id="draw">{w.draw}</h2>
      <Form form={form} onSubmit={draw}>
        <div class="row">
          <Field form={form} name="rewardId" label={w.raffle} options={raffles.map((r) => [r.id, r.name] as const)} />
          <Field form={form} name="winners" label={w.winners} inputMode="numeric" />
        </div>
        <Submit form={form}>{w.drawSubmit}</Submit>
      </Form>
      {winners && winners.length > 0 && <ul class="plain">{winners.map((winner) => <li key={winner.claimId}>{winner.externalId}</li>)}</ul>}
    </section>
  );
}
