import { useContext, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import { AskFirst, CopyButton, ErrorNote, useAction, type PanelProps } from './common.tsx';

interface Referral {
  /** The shop's referral page with ?ref=CODE, or (until it has one) this server's /r/CODE landing page. */
  referralCode: string; shareLink: string;
  stats: { totalReferrals: number; pendingReferrals: number; convertedReferrals: number; totalPointsEarned: number };
  rewards: { referrerReward: number; refereeReward: number };
}

/** Share targets that need no SDK: plain links the visitor's browser opens. */
export function shareLinks(url: string, email: string): [string, string][] {
  const u = encodeURIComponent(url);
  return [
    ['X', `https://twitter.com/intent/tweet?url=${u}`],
    ['Facebook', `https://www.facebook.com/sharer/sharer.php?u=${u}`],
    ['LinkedIn', `https://www.linkedin.com/sharing/share-offsite/?url=${u}`],
    ['WhatsApp', `https://wa.me/?text=${u}`],
    [email, `mailto:?body=${u}`],
  ];
}

/** Plain links, unlike the Share section's paid buttons; a code is never broken across lines. */
const STYLE = '.soft{background:rgba(0,0,0,.07);color:var(--pc-text);font-weight:500}.whole{white-space:nowrap}';

/** The link, its code kept whole: where the drawer is narrow, the address before it wraps instead. */
function LinkText({ shareLink, referralCode }: { shareLink: string; referralCode: string }) {
  const at = shareLink.lastIndexOf(referralCode);
  if (at < 0) return <>{shareLink}</>;
  return <>{shareLink.slice(0, at)}<span class="whole">{referralCode}</span>{shareLink.slice(at + referralCode.length)}</>;
}

/**
 * The member's link, copyable and sendable: plain links, set apart from the Share section, which
 * pays per share (sending here pays when the friend joins). "New code" asks first: the old link
 * stops working.
 */
export function ReferralPanel({ data }: PanelProps<Referral>) {
  const { t, number, call } = useContext(Ctx);
  const { busy, error, run } = useAction();
  const [link, setLink] = useState({ referralCode: data.referralCode, shareLink: data.shareLink });
  const [asking, setAsking] = useState(false);
  const regenerate = () => run(async () => {
    setLink(await call<typeof link>('POST', '/referral/code'));
    setAsking(false);
  });
  return (
    <div>
      <style>{STYLE}</style>
      <p>{t('referralDeal', { a: data.rewards.referrerReward, b: data.rewards.refereeReward })}</p>
      <h3>{t('yourLink')}</h3>
      <div class="row"><span class="code grow" dir="ltr" data-testid="referral-link"><LinkText {...link} /></span><CopyButton text={link.shareLink} /></div>
      <h3>{t('shareLink')}</h3>
      <ul class="row">
        {shareLinks(link.shareLink, t('email')).map(([name, href]) => <li key={name}><a class="btn soft" href={href} target="_blank" rel="noopener noreferrer">{name}</a></li>)}
      </ul>
      <div class="stats">
        <div><b>{number(data.stats.convertedReferrals)}</b> <span class="muted">{t('converted')}</span></div>
        <div><b>{number(data.stats.pendingReferrals)}</b> <span class="muted">{t('pending')}</span></div>
        <div><b>{number(data.stats.totalPointsEarned)}</b> <span class="muted">{t('points')}</span></div>
      </div>
      <ErrorNote text={error} />
      <AskFirst id="pc-new-code" asking={asking} setAsking={setAsking} question={t('newCodeAsk')} yes={t('confirm')} busy={busy} onYes={regenerate}>
        <button class="btn ghost" onClick={() => setAsking(true)}>{t('newCode')}</button>
      </AskFirst>
    </div>
  );
}
