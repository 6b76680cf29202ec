import { useContext, useEffect } from 'preact/hooks';
import { Ctx } from '../context.ts';
import type { Key } from '../strings.ts';
import { Coupon, CopyButton, type PanelProps } from './common.tsx';

export interface MyClaim {
  id: string; reward: { name: string; imageUrl: string | null; type: string }; status: string;
  couponCode: string | null; digitalContent: string | null; raffle: { closesAt: string | null; drawnAt: string | null } | null; createdAt: string;
}

const isLink = (text: string) => /^https?:\/\//i.test(text);

/** "My rewards": every claim, newest first, with what the member keeps from it: a code, a link, the draw or the delivery. */
export function MyRewards({ data, reload }: PanelProps<{ claims: MyClaim[] }>) {
  const { t, date } = useContext(Ctx);
  // Fetched again whenever the tab is shown: a claim made a moment ago in Rewards is here at once.
  useEffect(reload, []);
  if (data.claims.length === 0) return <p class="muted">{t('empty')}</p>;
  return (
    <ul data-testid="my-rewards">
      {data.claims.map((claim) => (
        <li key={claim.id} class="card">
          <div class="row"><b class="grow"><bdi>{claim.reward.name}</bdi></b><span class="muted">{t(`s_${claim.status}` as Key)}</span></div>
          <div class="muted">{date(claim.createdAt)}</div>
          {claim.couponCode && <Coupon code={claim.couponCode} />}
          {claim.digitalContent && (isLink(claim.digitalContent)
            ? <a class="btn ghost" href={claim.digitalContent} target="_blank" rel="noopener noreferrer">{t('openLink')}</a>
            : <div class="row"><span class="code grow" dir="ltr">{claim.digitalContent}</span><CopyButton text={claim.digitalContent} /></div>)}
          {claim.raffle && (claim.raffle.drawnAt ? <div class="muted">{t('drawnOn', { d: date(claim.raffle.drawnAt) })}</div>
            : claim.raffle.closesAt && <div class="muted">{t('drawOn', { d: date(claim.raffle.closesAt) })}</div>)}
        </li>
      ))}
    </ul>
  );
}
