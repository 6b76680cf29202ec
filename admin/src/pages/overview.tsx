import { useMemo } from 'preact/hooks';
import { csvHref, query } from '../api.ts';
import { Chart, type Series } from '../charts/chart.tsx';
import { CsvButton } from '../charts/csv.tsx';
import { fill, formatDay, formatMoney, formatNumber, formatPercent, sourceName, words } from '../i18n/words.ts';
import { navigate, withQuery } from '../router.ts';
import type { PageProps } from '../session.ts';
import { useApi } from '../ui/load.ts';
import { Alert, PageTitle } from '../ui/notice.tsx';
import { ScrollTable } from '../ui/scroll.tsx';

type Money = { amount: number; currency: string };

interface Overview {
  range: number; from: string; to: string; timezone: string;
  totals: {
    members: number; activeMembers: number; newMembers: number; pointsIssued: number; pointsRedeemed: number; pointsExpired: number;
    redemptionRate: number | null; outstanding: number; outstandingValue: Money | null;
  };
  days: { date: string; newMembers: number; activeMembers: number; issued: number; redeemed: number; expired: number; outstanding: number }[];
  topRewards: { id: string; name: string; claims: number; points: number }[];
  topQuests: { id: string; name: string; completions: number; points: number }[];
  earningSources: { source: string; points: number; count: number }[];
  commerce: null | {
    memberRevenue: number; nonMemberRevenue: number; memberOrders: number; nonMemberOrders: number;
    /** null: no shopper of that kind had a counted order in the range. */
    memberRepeatRate: number | null; nonMemberRepeatRate: number | null;
    /** The latest order's currency; null before any order recorded one. */
    currency: string | null;
  };
}

interface PointsDay {
  date: string; outstandingStart: number; earned: number; earnedReversed: number; redeemed: number; redeemedReimbursed: number; expired: number; outstandingEnd: number;
}

const RANGES = ['7', '30', '90', '365'] as const;
const ACCOUNTING = ['outstandingStart', 'earned', 'earnedReversed', 'redeemed', 'redeemedReimbursed', 'expired', 'outstandingEnd'] as const;

/** What the programme earns and owes over a range of days (the first page, as in Smile.io and LoyaltyLion). */
export default function OverviewPage({ project, query: params }: PageProps) {
  const range = RANGES.find((r) => r === params.get('range')) ?? '30';
  const base = `/projects/${encodeURIComponent(project.id)}`;
  const { data, error } = useApi<Overview>(`${base}/overview${query({ range })}`);
  const report = useApi<{ days: PointsDay[] }>(data ? `${base}/points-report${query({ from: data.from, to: data.to })}` : null);
  const w = words.overview;
  const charts = useMemo(() => data && chartsOf(data), [data]);
  return (
    <>
      <PageTitle>{words.nav.overview}</PageTitle>
      <fieldset class="segmented">
        <legend>{w.range}</legend>
        {RANGES.map((r) => (
          <label key={r}>
            <input type="radio" name="range" value={r} checked={r === range} onChange={() => navigate(withQuery({ range: r }), { replace: true })} />
            {fill(w.days, { n: Number(r) })}
          </label>
        ))}
      </fieldset>
      {error && <Alert>{error.message}</Alert>}
      {!data ? !error && <p role="status">{words.common.loading}</p> : (
        <div aria-busy={report.loading}>
          <p class="muted">{fill(w.period, { from: formatDay(data.from), to: formatDay(data.to), zone: data.timezone })}</p>
          <dl class="stats">
            <Stat label={w.members} value={formatNumber(data.totals.members)} />
            <Stat label={w.activeMembers} value={formatNumber(data.totals.activeMembers)} />
            <Stat label={w.newMembers} value={formatNumber(data.totals.newMembers)} />
            <Stat label={w.issued} value={formatNumber(data.totals.pointsIssued)} />
            <Stat label={w.redeemed} value={formatNumber(data.totals.pointsRedeemed)} />
            <Stat label={w.expired} value={formatNumber(data.totals.pointsExpired)} />
            <Stat label={w.redemptionRate} value={formatPercent(data.totals.redemptionRate)} />
            <Stat label={w.outstanding} value={formatNumber(data.totals.outstanding)} />
            {data.totals.outstandingValue && <Stat label={w.outstandingValue} value={formatMoney(data.totals.outstandingValue)} />}
          </dl>
          <div class="charts">
            {charts!.map((chart) => <Chart key={chart.file} {...chart} days={data.days.map((day) => day.date)} />)}
          </div>
          <div class="grid-2">
            <SmallTable title={w.topRewards} file="top-rewards.csv" header={[w.reward, w.claims, w.points]}
              rows={data.topRewards.map((r) => [r.name, r.claims, r.points])} />
            <SmallTable title={w.topQuests} file="top-quests.csv" header={[w.quest, w.completions, w.points]}
              rows={data.topQuests.map((q) => [q.name, q.completions, q.points])} />
            <SmallTable title={w.sources} file="earning-sources.csv" header={[w.source, w.points, w.count]}
              rows={data.earningSources.map((s) => [sourceName(s.source), s.points, s.count])} />
            {data.commerce && <Commerce commerce={data.commerce} />}
          </div>
          <section aria-labelledby="accounting">
            <h2 id="accounting">{w.accounting}</h2>
            <p class="muted">{w.accountingHelp}</p>
            {report.error && <Alert>{report.error.message}</Alert>}
            {report.data && (
              <ScrollTable caption={fill(w.accountingCaption, { from: formatDay(data.from), to: formatDay(data.to) })}>
                <thead><tr><th scope="col">{w.day}</th>{ACCOUNTING.map((c) => <th key={c} scope="col" class="num">{w.columns[c]}</th>)}</tr></thead>
                <tbody>
                  {report.data.days.map((day) => (
                    <tr key={day.date}><th scope="row">{formatDay(day.date)}</th>{ACCOUNTING.map((c) => <td key={c} class="num">{formatNumber(day[c])}</td>)}</tr>
                  ))}
                </tbody>
              </ScrollTable>
            )}
            <a class="button" href={csvHref(`${base}/points-report`, { from: data.from, to: data.to })} download="points-report.csv">{words.table.csv}</a>
          </section>
        </div>
      )}
    </>
  );
}

/** The three charts' series; the liability also in money when the project values its points. */
function chartsOf(data: Overview): { title: string; file: string; series: Series[] }[] {
  const w = words.overview;
  const column = (key: keyof Overview['days'][number]) => data.days.map((day) => day[key] as number);
  const { outstanding, outstandingValue } = data.totals;
  return [
    { title: w.pointsChart, file: 'points-per-day.csv', series: [
      { label: w.issued, values: column('issued'), color: '#4338ca' },
      { label: w.redeemed, values: column('redeemed'), color: '#047857' },
      { label: w.expired, values: column('expired'), color: '#b45309' },
    ] },
    { title: w.outstandingChart, file: 'points-outstanding.csv', series: [
      { label: w.outstanding, values: column('outstanding'), color: '#4338ca' },
      // The value per point, from today's figures: every day's points are worth the same.
      ...(outstandingValue && outstanding > 0 ? [{
        label: fill(w.outstandingIn, { currency: outstandingValue.currency }),
        values: column('outstanding').map((points) => Math.round((points * outstandingValue.amount) / outstanding * 100) / 100),
        color: '#047857',
        money: outstandingValue.currency,
      }] : []),
    ] },
    { title: w.membersChart, file: 'members-per-day.csv', series: [
      { label: w.newMembers, values: column('newMembers'), color: '#4338ca' },
      { label: w.activeMembers, values: column('activeMembers'), color: '#0e7490' },
    ] },
  ];
}

const Stat = ({ label, value }: { label: string; value: string }) => <div class="stat"><dt>{label}</dt><dd>{value}</dd></div>;

function SmallTable({ title, header, rows, file }: { title: string; header: string[]; rows: (string | number)[][]; file: string }) {
  return (
    <section class="small-table">
      <ScrollTable caption={title}>
        <thead><tr>{header.map((h, i) => <th key={h} scope="col" class={i ? 'num' : undefined}>{h}</th>)}</tr></thead>
        <tbody>
          {rows.length === 0 ? <tr><td colSpan={header.length} class="empty">{words.overview.nothing}</td></tr>
            : rows.map((row) => (
              <tr key={String(row[0])}>{row.map((cell, i) => (i === 0 ? <th key={i} scope="row">{cell}</th> : <td key={i} class="num">{formatNumber(cell as number)}</td>))}</tr>
            ))}
        </tbody>
      </ScrollTable>
      <CsvButton name={file} label={title} header={header} rows={rows} />
    </section>
  );
}

/** Members against everyone else, from the connected store's orders. */
function Commerce({ commerce: c }: { commerce: NonNullable<Overview['commerce']> }) {
  const w = words.overview;
  const money = (amount: number) => (c.currency === null ? formatNumber(amount) : formatMoney({ amount, currency: c.currency }));
  const rows: [string, string, string][] = [
    [w.revenue, money(c.memberRevenue), money(c.nonMemberRevenue)],
    [w.orders, formatNumber(c.memberOrders), formatNumber(c.nonMemberOrders)],
    [w.repeatRate, formatPercent(c.memberRepeatRate), formatPercent(c.nonMemberRepeatRate)],
  ];
  return (
    <section class="small-table">
      <ScrollTable caption={w.commerce}>
        <thead><tr><th scope="col"><span class="visually-hidden">{w.measure}</span></th><th scope="col" class="num">{w.membersCol}</th><th scope="col" class="num">{w.nonMembers}</th></tr></thead>
        <tbody>{rows.map(([label, a, b]) => <tr key={label}><th scope="row">{label}</th><td class="num">{a}</td><td class="num">{b}</td></tr>)}</tbody>
      </ScrollTable>
      <CsvButton name="members-and-others.csv" label={w.commerce} header={[w.measure, w.membersCol, w.nonMembers, w.currency]} rows={[
        [w.revenue, c.memberRevenue, c.nonMemberRevenue, c.currency], [w.orders, c.memberOrders, c.nonMemberOrders, null],
        [w.repeatRate, c.memberRepeatRate, c.nonMemberRepeatRate, null],
      ]} />
    </section>
  );
}
