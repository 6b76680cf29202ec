import { useContext, useState } from 'preact/hooks';
import type { Theme } from '../api.ts';
import { Ctx, type WidgetContext } from '../context.ts';
import { pointsText } from '../format.tsx';
import type { Translate } from '../i18n.ts';
import { CSS, MOTION_CSS } from '../styles.ts';

/** GET /api/widget/guest: the programme for a visitor who is not signed in (the client is `guest` in api.ts). */
export interface Guest {
  signUpUrl: string | null; signInUrl: string | null; welcomeBonus: number;
  levels: { level: number; name: string; minTotalPointsEarned: number }[];
  rewards: { id: string; name: string; pointsCost: number }[];
  waysToEarn: {
    quests: { id: string; name: string; points: number }[];
    checkin: { points: number } | null;
    share: { pointsPerShare: number } | null;
    referral: { referrerReward: number } | null;
  };
}

/** A minimal guest view: ways to earn, rewards, levels and the shop's join and sign-in links; sections without content do not appear. */
export function GuestView({ data }: { data: Guest }) {
  const { t, number } = useContext(Ctx);
  const { quests, checkin, share, referral } = data.waysToEarn;
  const earn: [string, number][] = [
    ...(data.welcomeBonus ? [[t('welcomeBonus'), data.welcomeBonus] as [string, number]] : []),
    ...quests.map((quest): [string, number] => [quest.name, quest.points]),
    ...(checkin ? [[t('checkin'), checkin.points] as [string, number]] : []),
    ...(share ? [[t('share'), share.pointsPerShare] as [string, number]] : []),
    ...(referral ? [[t('referrals'), referral.referrerReward] as [string, number]] : []),
  ];
  const list = (rows: [string, string][]) => <ul>{rows.map(([name, value]) => <li key={name}><span>{name}</span><b>{value}</b></li>)}</ul>;
  return (
    <div data-testid="guest">
      <div class="row">
        {data.signUpUrl && <a class="btn" href={data.signUpUrl}>{t('signUp')}</a>}
        {data.signInUrl && <a class="btn ghost" href={data.signInUrl}>{t('signIn')}</a>}
      </div>
      {earn.length > 0 && <><h3>{t('waysToEarn')}</h3>{list(earn.map(([name, points]) => [name, `+${pointsText(t, number, points)}`]))}</>}
      {data.rewards.length > 0 && <><h3>{t('rewards')}</h3>{list(data.rewards.map((reward) => [reward.name, t('cost', { n: reward.pointsCost })]))}</>}
      {data.levels.length > 0 && <><h3>{t('levels')}</h3>{list(data.levels.map((level) => [level.name, t('cost', { n: level.minTotalPointsEarned })]))}</>}
    </div>
  );
}

/** The widget for a visitor who is not signed in (Punchcard.init without externalId): a launcher and the guest view. */
export function GuestApp({ data, t, language, theme, position }: { data: Guest & { project: { name: string } }; t: Translate; language: string; theme: Theme; position: string }) {
  const [open, setOpen] = useState(false);
  const format = new Intl.NumberFormat(language);
  const context = { t, number: (n: number) => format.format(n) } as WidgetContext;
  const style = { '--pc-primary': theme.primaryColor, '--pc-text': theme.textColor, '--pc-bg': theme.backgroundColor } as Record<string, string>;
  return (
    <div class="root" style={style} lang={language}>
      <style>{CSS + MOTION_CSS}</style>
      <button class={`launcher ${position}`} aria-expanded={open} aria-haspopup="dialog" onClick={() => setOpen(!open)}>★ {t('open')}</button>
      {open && (
        <div class={`drawer ${position}`} role="dialog" aria-modal="true" aria-labelledby="pc-title" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
          <header><h2 id="pc-title">{data.project.name}</h2><button class="x" aria-label={t('close')} onClick={() => setOpen(false)}>×</button></header>
          <div class="body"><Ctx.Provider value={context}><GuestView data={data} /></Ctx.Provider></div>
        </div>
      )}
    </div>
  );
}
