import { useContext, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import { ErrorNote, useAction, type PanelProps } from './common.tsx';
import { shareLinks } from './referral.tsx';

interface ShareInfo { platforms: string[]; pointsPerShare: number; maxSharesPerDay: number; cooldownMinutes: number; todayShares: number; canShare: boolean }
interface Shared { success: boolean; pointsAwarded: number }

const PLATFORM_INDEX: Record<string, number> = { twitter: 0, facebook: 1, linkedin: 2, whatsapp: 3, email: 4 };

/** Shares the page the visitor is on; the server pays for it within its daily limit and cooldown. */
export function SharePanel({ data, reload }: PanelProps<ShareInfo>) {
  const { t, number, call, setPoints } = useContext(Ctx);
  const { busy, error, run } = useAction();
  const [awarded, setAwarded] = useState(0);
  const links = shareLinks(location.href, t('email'));
  const share = (platform: string) => run(async () => {
    window.open(links[PLATFORM_INDEX[platform] ?? 0]![1], '_blank', 'noopener');
    const result = await call<Shared>('POST', '/social-share', { platform, shareType: 'page' });
    setAwarded(result.pointsAwarded);
    setPoints((await call<{ points: number }>('GET', '/profile')).points);
    reload();
  });
  return (
    <div>
      <p>{t('shareFor', { n: data.pointsPerShare })}</p>
      <p class="muted">{t('sharesLeft', { a: data.todayShares, b: data.maxSharesPerDay })}</p>
      <div class="row">
        {data.platforms.filter((p) => p in PLATFORM_INDEX).map((platform) => (
          <button class="btn ghost" key={platform} disabled={busy || !data.canShare} onClick={() => share(platform)}>{links[PLATFORM_INDEX[platform]!]![0]}</button>
        ))}
      </div>
      {awarded > 0 && <p class="note" role="status">+{number(awarded)} {t('points')}</p>}
      <ErrorNote text={error} />
    </div>
  );
}
