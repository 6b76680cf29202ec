import { useContext, useEffect } from 'preact/hooks';
import { Ctx } from '../context.ts';
import type { PanelProps } from './common.tsx';

/** GET /api/widget/community: the member's linked account, or where to link one (a fresh authorize URL on each load). */
export interface CommunityInfo { available: boolean; linked: boolean; username: string | null; url: string | null }

/**
 * The member's Discord account: the name it is linked as, or a button that starts linking in a new
 * tab (through this server, on to Discord's consent page). Coming back to this tab reloads, so the name shows once the member has linked there.
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
        : data.url && (
          // A form POST, not a link: it names this page (Origin), so the server gives the link's cookie to
          // this browser only when a page the shop allows starts it, and then sends it on to Discord.
          <form method="post" action={data.url} target="_blank" rel="noopener"><button class="btn" type="submit">{t('discordLink')}</button></form>
        )}
    </div>
  );
}
