import { useContext } from 'preact/hooks';
import { Ctx } from '../context.ts';
import type { PanelProps } from './common.tsx';

interface Entry { rank: number; name: string | null; points: number; isMember?: boolean }
interface Board { entries: Entry[]; member: { rank: number | null; points: number } | null }

export function Leaderboard({ data }: PanelProps<Board>) {
  const { t, number } = useContext(Ctx);
  return (
    <div>
      {data.member?.rank && <p><b>{t('rank', { n: data.member.rank })}</b></p>}
      {data.entries.length === 0 ? <p class="muted">{t('empty')}</p> : (
        <ol class="list">
          {data.entries.map((entry) => (
            <li key={entry.rank} style={entry.isMember ? { fontWeight: 700 } : {}}>
              <span>#{number(entry.rank)} <bdi>{entry.isMember ? t('you') : entry.name ?? '—'}</bdi></span><span>{number(entry.points)}</span>
            </li>
          ))}
        </ol>
      )}
    </div>
  );
}
