import { useContext, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import { historyText } from '../format.tsx';
import { ErrorNote, useAction, type PanelProps } from './common.tsx';

interface Entry { id: string; amount: number; type: string; source: string; description: string | null; createdAt: string; entry: { kind: string; params: Record<string, string | number> } }
export interface History { transactions: Entry[]; pagination: { total: number; limit: number; offset: number; hasMore: boolean } }

/** Balance, lifetime earnings, streak, and the member's history with "load more". */
export function Home({ data }: PanelProps<History>) {
  const { t, number, date, member, call } = useContext(Ctx);
  const [pages, setPages] = useState<History[]>([]);
  const { busy, error, run } = useAction();
  const all = [data, ...pages];
  const last = all[all.length - 1]!;
  const more = () => run(async () => {
    const next = await call<History>('GET', `/history?limit=${last.pagination.limit}&offset=${last.pagination.offset + last.transactions.length}`);
    setPages([...pages, next]);
  });
  const label = (entry: Entry) => historyText(t, entry.entry);
  return (
    <div>
      <div class="muted">{t('balance')}</div>
      <div class="big" data-testid="balance">{number(member.points)} <span class="muted">{t('points')}</span></div>
      <div class="stats">
        <div><b>{number(member.totalPointsEarned)}</b> <span class="muted">{t('earned')}</span></div>
        <div><b>{number(member.currentStreak)}</b> <span class="muted">{t('streak')}</span></div>
      </div>
      <h3>{t('history')}</h3>
      {data.transactions.length === 0 ? <p class="muted">{t('noHistory')}</p> : (
        <ul data-testid="history">
          {all.flatMap((page) => page.transactions).map((entry) => (
            <li key={entry.id}>
              <span class="grow">{label(entry)}<br /><span class="muted">{date(entry.createdAt)}</span></span>
              <span class={entry.amount > 0 ? 'plus' : 'minus'}>{entry.amount > 0 ? '+' : '−'}{number(Math.abs(entry.amount))}</span>
            </li>
          ))}
        </ul>
      )}
      <ErrorNote text={error} />
      {last.pagination.hasMore && <p><button class="btn ghost" disabled={busy} onClick={more}>{t('more')}</button></p>}
    </div>
  );
}
