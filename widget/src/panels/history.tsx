import { useContext, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import type { Translate } from '../i18n.ts';
import type { Key } from '../strings.ts';
import { ErrorNote, useAction, type PanelProps } from './common.tsx';

interface Entry { id: string; amount: number; type: string; source: string; description: string | null; createdAt: string; entry: { kind: string; params: Record<string, string | number> } }
interface Page { transactions: Entry[]; pagination: { total: number; limit: number; offset: number; hasMore: boolean } }

const STYLE = '.plus{color:#15803d;font-weight:600}.minus{color:#b91c1c;font-weight:600}';

/** History kinds the widget already had words for. */
const SAME_WORDS: Record<string, Key> = { welcome_bonus: 'welcomeBonus', points_earned: 'tEARNED', adjustment: 'tDEDUCTED', refund: 'tREFUNDED' };

/** A history line in the shopper's language from its kind and parameters (each named by its first letter in the strings). */
function historyText(t: Translate, entry: { kind: string; params: Record<string, string | number> }): string {
  if (entry.params.note) return String(entry.params.note);
  const values = Object.fromEntries(Object.entries(entry.params).map(([name, value]) => [name[0]!, value]));
  const key = (SAME_WORDS[entry.kind] ?? `h_${entry.kind}`) as Key;
  const text = t(key, values);
  return text === key ? t('tEARNED') : text;
}

/** Lifetime earnings, streak, and the member's history, in their language, with "load more". */
export function History({ data }: PanelProps<Page>) {
  const { t, number, date, member, call } = useContext(Ctx);
  const [pages, setPages] = useState<Page[]>([]);
  const { busy, error, run } = useAction();
  const all = [data, ...pages];
  const last = all[all.length - 1]!;
  const more = () => run(async () => {
    const next = await call<Page>('GET', `/history?limit=${last.pagination.limit}&offset=${last.pagination.offset + last.transactions.length}`);
    setPages([...pages, next]);
  });
  return (
    <div>
      <style>{STYLE}</style>
      <div class="stats">
        <div><b>{number(member.totalPointsEarned)}</b> <span class="muted">{t('earned')}</span></div>
        <div><b>{number(member.currentStreak)}</b> <span class="muted">{t('streak')}</span></div>
      </div>
      {data.transactions.length === 0 ? <p class="muted">{t('noHistory')}</p> : (
        <ul class="list" data-testid="history">
          {all.flatMap((page) => page.transactions).map((entry) => (
            <li key={entry.id}>
              <span class="grow"><bdi>{historyText(t, entry.entry)}</bdi><br /><span class="muted">{date(entry.createdAt)}</span></span>
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
