import { useContext, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import type { Availability } from '../api.ts';
import { closedText, pointsText } from './words.ts';
import { ErrorNote, useAction, type PanelProps } from './common.tsx';
import { shareLinks } from './referral.tsx';

/** `link`: the member's referral link when the referral programme has one (loadShare), else the page is shared. */
export interface ShareInfo { platforms: string[]; pointsPerShare: number; maxSharesPerDay: number; todayShares: number; canShare: boolean; link?: string | null;
  multiplier: number; availability: Availability;
}
interface Shared { success: boolean; pointsAwarded: number; basePoints: number; multiplier: number; member: { points: number } }

/** The project's platforms (as the server names them) that shareLinks has a link for. */
const PLATFORM_INDEX: Record<string, number> = { x: 0, twitter: 0, facebook: 1, linkedin: 2, whatsapp: 3, email: 4 };

/** Shares the member's referral link (or the page); the server pays for it within its daily limit and cooldown. */
export function SharePanel({ data, reload }: PanelProps<ShareInfo>) {
  const { t, number, date, call, setPoints } = useContext(Ctx);
  const { busy, error, run } = useAction();
  const [awarded, setAwarded] = useState<Shared | null>(null);
  const links = shareLinks(data.link ?? location.href, t('email'));
  const share = (platform: string) => run(async () => {
    window.open(links[PLATFORM_INDEX[platform] ?? 0]![1], '_blank', 'noopener');
    const result = await call<Shared>('POST', '/social-share', { platform, shareType: data.link ? 'referral' : 'page' });
    setAwarded(result);
    setPoints(result.member.points);
    reload();
  });
  return (
    <div>
      <p>{data.multiplier === 1 ? t('shareFor', { n: data.pointsPerShare }) : `${t('share')}: +${pointsText(t, number, data.pointsPerShare, data.multiplier)}`}</p>
      <p class="muted">{t('sharesLeft', { a: data.todayShares, b: data.maxSharesPerDay })} {closedText(t, date, data.availability)}</p>
      <div class="row">
        {data.platforms.filter((p) => p in PLATFORM_INDEX).map((platform) => (
          <button class="btn ghost" key={platform} disabled={busy || !data.canShare} onClick={() => share(platform)}>{links[PLATFORM_INDEX[platform]!]![0]}</button>
        ))}
      </div>
      {awarded && awarded.pointsAwarded > 0 && <p class="note" role="status">+{pointsText(t, number, awarded.basePoints, awarded.multiplier, awarded.pointsAwarded)}</p>}
      <ErrorNote text={error} />
    </div>
  );
}
