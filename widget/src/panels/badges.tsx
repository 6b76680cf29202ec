import { useContext } from 'preact/hooks';
import { Ctx } from '../context.ts';
import { Icon } from '../icons.tsx';
import { LOCK } from './section-icons.ts';
import type { Key } from '../strings.ts';
import type { PanelProps } from './common.tsx';

interface Badge { id: string; name: string; description: string | null; imageUrl: string | null; rarity: string; awardedAt?: string }

// Locked: the picture greys out, the words keep full contrast.
const STYLE = `.badges{display:grid;grid-template-columns:repeat(auto-fill,minmax(100px,1fr));gap:12px}
.badge{display:grid;justify-items:center;align-content:start;gap:2px;text-align:center;font-size:12px}
.badge img,.badge>.i{width:44px;height:44px;object-fit:contain;color:var(--pc-primary)}.locked img,.locked>.i{filter:grayscale(1);opacity:.5}`;

/** Each badge with its description in plain sight (no hover needed); a locked one says so with a lock. */
function Grid({ badges, locked }: { badges: Badge[]; locked: boolean }) {
  const { date, t } = useContext(Ctx);
  return (
    <ul class="badges">
      {badges.map((badge) => (
        <li class={`badge${locked ? ' locked' : ''}`} key={badge.id}>
          {badge.imageUrl ? <img src={badge.imageUrl} alt="" /> : <Icon name="medal" />}
          <b>{locked && <Icon name="lock" d={LOCK} />} <bdi>{badge.name}</bdi></b>
          {badge.description && <bdi>{badge.description}</bdi>}
          <span class="muted">{badge.awardedAt ? date(badge.awardedAt) : t(`r_${badge.rarity}` as Key)}</span>
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
