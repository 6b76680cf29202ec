import { useContext, useEffect } from 'preact/hooks';
import { Ctx } from '../context.ts';
import type { PanelProps } from './common.tsx';

/** GET /api/widget/community: the member's linked account, or where to link one (a fresh authorize URL on each load). */
export interface CommunityInfo { available: boolean; linked: boolean; username: string | null; url: string | null }

/**
 * The member's Discord account: the name it is linked as, or a link to Discord's consent page in a
 * new tab. Coming back to this tab reloads, so the name shows once the member has linked there.
 */
export function Discord({ data, reload }: PanelProps<CommunityInfo>) {
  const { t } = useContext(Ctx);
  useEffect(() => {
    if (data.linked) return;
    addEventListener('focus', reload);
    return () => removeEventListener('focus', reload);
  }, [data.linked]);
  return (
    <div>
      <p>{t('discordWhy')}</p>
      {data.linked ? <p class="note" role="status">{t('discordAs', { n: data.username ?? '' })}</p>
        : data.url && <a class="btn" href={data.url} target="_blank" rel="noopener">{t('discordLink')}</a>}
    </div>
  );
}
