import { API, api, query } from '../api.ts';
import { fill, formatDateTime, formatNumber, sourceName, words } from '../i18n/words.ts';
import { navigate, projectHref } from '../router.ts';
import { allows, type PageProps } from '../session.ts';
import { TypedConfirm } from '../ui/confirm.tsx';
import { Field, Form, Submit, useForm } from '../ui/form.tsx';
import { numberOrText } from '../ui/form-values.ts';
import { Link } from '../ui/link.tsx';
import { useAction, useApi } from '../ui/load.ts';
import { Alert, PageTitle } from '../ui/notice.tsx';
import { DataTable, type Pagination } from '../ui/table.tsx';
import type { Member } from './members.tsx';

interface Profile {
  member: Member;
  level: { level: number; name: string } | null;
  badges: { id: string; badgeId: string; name: string; rarity: string; earnedAt: string }[];
  quests: { questId: string; name: string; progress: number; targetCount: number; status: string; completedAt: string | null }[];
  claims: { id: string; reward: { name: string }; pointsSpent: number; status: string; couponCode?: string; createdAt: string }[];
  referral: { referralCode: string | null; stats: { totalReferrals: number; convertedReferrals: number; pendingReferrals: number; totalPointsEarned: number } };
}

interface Transaction { id: string; amount: number; balance: number; type: string; source: string; actor: string; description: string | null; createdAt: string }

/** One member: what they hold and did, their full history (paged), and, for staff, adjusting points, export and erasure. */
export default function MemberPage({ project, params, query: params2 }: PageProps) {
  const externalId = params.member!;
  const path = `/projects/${encodeURIComponent(project.id)}/members/${encodeURIComponent(externalId)}`;
  const profile = useApi<Profile>(path);
  const offset = params2.get('offset');
  const history = useApi<{ transactions: Transaction[]; pagination: Pagination }>(`${path}/transactions${query({ limit: 50, offset })}`);
  const w = words.member;
  const staff = allows(project.role, 'staff');
  const reload = () => {
    profile.reload();
    history.reload();
  };
  if (profile.error) {
    return <><PageTitle>{externalId}</PageTitle><Alert>{profile.error.message}</Alert></>;
  }
  const data = profile.data;
  return (
    <>
      <p class="crumbs"><Link href={projectHref(project.id, 'members')}>{words.nav.members}</Link></p>
      <PageTitle actions={<a class="button" href={`${API}${path}/export`} download={`member-${externalId}.json`}>{w.export}</a>}>
        {data?.member.name ? `${data.member.name} (${externalId})` : externalId}
      </PageTitle>
      {!data ? <p role="status">{words.common.loading}</p> : (
        <>
          <dl class="stats">
            <div class="stat"><dt>{w.balance}</dt><dd data-testid="balance">{formatNumber(data.member.points)}</dd></div>
            <div class="stat"><dt>{w.earned}</dt><dd>{formatNumber(data.member.totalPointsEarned)}</dd></div>
            <div class="stat"><dt>{w.level}</dt><dd>{data.level ? data.level.name : words.common.none}</dd></div>
            <div class="stat"><dt>{w.streak}</dt><dd>{formatNumber(data.member.currentStreak)}</dd></div>
          </dl>
          <dl class="facts">
            <dt>{w.email}</dt><dd>{data.member.email ?? words.common.none}</dd>
            <dt>{w.joined}</dt><dd>{formatDateTime(data.member.createdAt)}</dd>
            <dt>{w.referralCode}</dt><dd>{data.referral.referralCode ?? words.common.none}</dd>
            <dt>{w.referrals}</dt><dd>{fill(w.referralStats, data.referral.stats)}</dd>
          </dl>
          {staff && <Adjust path={path} onDone={reload} />}
          <div class="grid-2">
            <section>
              <h2>{w.badges}</h2>
              {data.badges.length === 0 ? <p class="muted">{w.noBadges}</p>
                : <ul class="tags">{data.badges.map((b) => <li key={b.id}>{b.name} <span class="muted">({words.rarities[b.rarity as keyof typeof words.rarities] ?? b.rarity})</span></li>)}</ul>}
            </section>
            <section>
              <h2>{w.quests}</h2>
              {data.quests.length === 0 ? <p class="muted">{w.noQuests}</p> : (
                <ul class="plain">
                  {data.quests.map((q) => (
                    <li key={q.questId}>{q.name}: {fill(w.progress, { progress: q.progress, target: q.targetCount })}
                      {q.completedAt && <span class="muted"> · {formatDateTime(q.completedAt)}</span>}</li>
                  ))}
                </ul>
              )}
            </section>
          </div>
          <DataTable caption={w.claims} rows={data.claims} rowKey={(c) => c.id} columns={[
            { key: 'reward', label: w.reward, render: (c) => c.reward.name },
            { key: 'pointsSpent', label: w.points, numeric: true, render: (c) => formatNumber(c.pointsSpent) },
            { key: 'status', label: w.status, render: (c) => words.claimStatus[c.status as keyof typeof words.claimStatus] ?? c.status },
            { key: 'couponCode', label: w.coupon, render: (c) => c.couponCode ?? '' },
            { key: 'createdAt', label: w.date, render: (c) => formatDateTime(c.createdAt) },
          ]} />
        </>
      )}
      <DataTable caption={w.history} loading={history.loading} rows={history.data?.transactions ?? []} rowKey={(t) => t.id}
        pagination={history.data?.pagination} columns={[
          { key: 'createdAt', label: w.date, render: (t) => formatDateTime(t.createdAt) },
          { key: 'type', label: w.type, render: (t) => words.transactionTypes[t.type as keyof typeof words.transactionTypes] ?? t.type },
          { key: 'amount', label: w.amount, numeric: true, render: (t) => (t.amount > 0 ? `+${formatNumber(t.amount)}` : formatNumber(t.amount)) },
          { key: 'balance', label: w.balanceAfter, numeric: true, render: (t) => formatNumber(t.balance) },
          { key: 'source', label: w.source, render: (t) => sourceName(t.source) },
          { key: 'actor', label: w.actor, render: (t) => t.actor },
          { key: 'description', label: w.description, render: (t) => t.description ?? '' },
        ]} />
      {staff && data && <Erase path={path} externalId={externalId} projectId={project.id} />}
    </>
  );
}

/** One ledger posting with its reason; the Idempotency-Key (api.ts) makes a double click post once. */
function Adjust({ path, onDone }: { path: string; onDone: () => void }) {
  const form = useForm({ amount: '', reason: '' });
  const w = words.member;
  const submit = form.submit(async ({ amount, reason }) => {
    const result = await api<{ member: { points: number } }>('POST', `${path}/points`, { amount: numberOrText(amount), reason });
    form.reset({ amount: '', reason: '' });
    onDone();
    return fill(w.adjusted, { points: formatNumber(result.member.points) });
  });
  return (
    <section class="card" aria-labelledby="adjust">
      <h2 id="adjust">{w.adjust}</h2>
      <Form form={form} onSubmit={submit}>
        <div class="row">
          <Field form={form} name="amount" label={w.pointsField} hint={w.pointsHint} inputMode="numeric" required />
          <Field form={form} name="reason" label={w.reasonField} hint={w.reasonHint} required />
        </div>
        <Submit form={form}>{w.adjustSubmit}</Submit>
      </Form>
    </section>
  );
}

/** Erasure (the member's right to be forgotten): typed confirmation, then the list. */
function Erase({ path, externalId, projectId }: { path: string; externalId: string; projectId: string }) {
  const erasing = useAction();
  const erase = (confirm: string) => erasing.run(async () => {
    await api('DELETE', path, { confirm });
    navigate(projectHref(projectId, 'members'));
  });
  return (
    <section class="danger-zone" aria-labelledby="erase">
      <h2 id="erase">{words.member.erase}</h2>
      <TypedConfirm expected={externalId} action={words.member.eraseSubmit} label={words.member.eraseHelp} busy={erasing.busy} onConfirm={erase} />
      {erasing.failed && <Alert>{erasing.failed}</Alert>}
    </section>
  );
}
