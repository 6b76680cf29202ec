import { useContext } from 'preact/hooks';
import type { Guest } from '../api.ts';
import { Ctx } from '../context.ts';
import { pointsText } from './words.ts';

/** A minimal guest view (a chunk; GuestApp in app.tsx draws the launcher and drawer around it): ways to earn, rewards, levels and the shop's join and sign-in links; sections without content do not appear. */
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
  const list = (rows: [string, string][]) => <ul class="list">{rows.map(([name, value]) => <li key={name}><bdi>{name}</bdi><b><bdi>{value}</bdi></b></li>)}</ul>;
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
