import { useContext, useState } from 'preact/hooks';
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

export function ReferralPanel({ data }: PanelProps<Referral>) {
  const { t, number, call } = useContext(Ctx);
  const { busy, error, run } = useAction();
  const [link, setLink] = useState({ referralCode: data.referralCode, shareLink: data.shareLink });
  const regenerate = () => run(async () => setLink(await call<typeof link>('POST', '/referral/code')));
  return (
    <div>
      <p>{t('referralDeal', { a: data.rewards.referrerReward, b: data.rewards.refereeReward })}</p>
      <h3>{t('yourLink')}</h3>
      <div class="row"><span class="code grow">{link.shareLink}</span><CopyButton text={link.shareLink} /></div>
      <div class="row" style={{ marginTop: '8px' }}>
        {shareLinks(link.shareLink, t('email')).map(([name, href]) => <a class="btn ghost" key={name} href={href} target="_blank" rel="noopener noreferrer">{name}</a>)}
      </div>
      <div class="stats">
        <div><b>{number(data.stats.convertedReferrals)}</b> <span class="muted">{t('converted')}</span></div>
        <div><b>{number(data.stats.pendingReferrals)}</b> <span class="muted">{t('pending')}</span></div>
        <div><b>{number(data.stats.totalPointsEarned)}</b> <span class="muted">{t('points')}</span></div>
      </div>
      <ErrorNote text={error} />
      <p><button class="btn ghost" disabled={busy} onClick={regenerate}>{t('newCode')}</button></p>
    </div>
  );
}
