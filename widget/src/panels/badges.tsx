import { useContext } from 'preact/hooks';
import { Ctx } from '../context.ts';
import type { Key } from '../strings.ts';
import type { PanelProps } from './common.tsx';

interface Badge { id: string; name: string; description: string | null; imageUrl: string | null; rarity: string; awardedAt?: string }

const STYLE = `.badges{display:grid;grid-template-columns:repeat(auto-fill,minmax(88px,1fr));gap:10px}
.badge{text-align:center;font-size:12px}.badge img{width:48px;height:48px;object-fit:contain}.locked{opacity:.4;filter:grayscale(1)}`;

function Grid({ badges, locked }: { badges: Badge[]; locked: boolean }) {
  const { date, t } = useContext(Ctx);
  return (
    <ul class="badges">
      {badges.map((badge) => (
        <li class={`badge${locked ? ' locked' : ''}`} key={badge.id} title={badge.description ?? ''} style={{ display: 'block', border: 0 }}>
          {badge.imageUrl ? <img src={badge.imageUrl} alt="" /> : <div style={{ fontSize: '36px' }} aria-hidden="true">🏅</div>}
          <div><b>{badge.name}</b></div>
          <div class="muted">{badge.awardedAt ? date(badge.awardedAt) : t(`r_${badge.rarity}` as Key)}</div>
        </li>
      ))}
    </ul>
  );
}

export function Badges({ data }: PanelProps<{ earned: Badge[]; available: Badge[] }>) {
  const { t } = useContext(Ctx);
  return (
    <div>
      <style>{STYLE}</style>
      <h3>{t('earnedBadges')}</h3>
      {data.earned.length ? <Grid badges={data.earned} locked={false} /> : <p class="muted">{t('empty')}</p>}
      {data.available.length > 0 && <><h3>{t('lockedBadges')}</h3><Grid badges={data.available} locked /></>}
    </div>
  );
}
