import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import { CopyButton, ErrorNote, useAction, type PanelProps } from './common.tsx';

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

/** Plain links, unlike the Share section's paid buttons. */
const STYLE = '.soft{background:rgba(0,0,0,.07);color:var(--pc-text);font-weight:500}';

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
  // The question takes focus from the button it replaces (to Cancel), and gives it back; not on first show.
  const focusNext = useRef<HTMLDivElement>(null);
  const shown = useRef(false);
  useEffect(() => {
    if (shown.current) focusNext.current?.querySelector<HTMLElement>('button:last-child')?.focus();
    shown.current = true;
  }, [asking]);
  const regenerate = () => run(async () => {
    setLink(await call<typeof link>('POST', '/referral/code'));
    setAsking(false);
  });
  return (
    <div>
      <style>{STYLE}</style>
      <p>{t('referralDeal', { a: data.rewards.referrerReward, b: data.rewards.refereeReward })}</p>
      <h3>{t('yourLink')}</h3>
      <div class="row"><span class="code grow" dir="ltr">{link.shareLink}</span><CopyButton text={link.shareLink} /></div>
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
      {asking ? (
        <div ref={focusNext} class="note" role="group" aria-labelledby="pc-new-code">
          <p id="pc-new-code">{t('newCodeAsk')}</p>
          <div class="row"><button class="btn" disabled={busy} onClick={regenerate}>{t('confirm')}</button><button class="btn ghost" onClick={() => setAsking(false)}>{t('cancel')}</button></div>
        </div>
      ) : <div ref={focusNext}><button class="btn ghost" onClick={() => setAsking(true)}>{t('newCode')}</button></div>}
    </div>
  );
}
