import { useContext } from 'preact/hooks';
import type { InitResponse } from '../api.ts';
import { Ctx } from '../context.ts';
import { Icon, type IconName } from '../icons.tsx';
import type { Key } from '../strings.ts';
import type { Checkin } from './checkin.tsx';
import type { Game } from './games.tsx';
import type { Loaded, PanelDef } from './index.ts';
import type { Quest } from './quests.tsx';
import type { Reward } from './rewards.tsx';
import type { ShareInfo } from './share.tsx';

interface HomeProps {
  init: InitResponse;
  panels: Map<PanelDef, Loaded>;
  /** The sections that answered, in menu order. */
  shown: PanelDef[];
  go: (panel: PanelDef) => void;
}

/** One line of "ways to earn" or "ways to redeem": opens the section it comes from. */
interface Way { key: string; icon: IconName; label: string; value: string; multiplier?: number; ready?: boolean; panel: PanelDef }

/** How many quests and rewards the home names; the rest are a tap away in their section. */
const TEASED = 3;

/**
 * The programme on one screen: who you are, what you have, where you stand, what is boosted now,
 * every section, how to earn and what to spend on. A part without content does not appear.
 */
export function Home({ init, panels, shown, go }: HomeProps) {
  const { t, number, date, member } = useContext(Ctx);
  /** A section's data once it has answered. */
  const ready = <T,>(id: Key) => {
    const panel = shown.find((p) => p.id === id);
    const loaded = panel && panels.get(panel);
    return panel && loaded?.state === 'ready' ? { panel, data: loaded.data as T } : null;
  };
  const earn: Way[] = [];
  const quests = ready<{ quests: Quest[] }>('quests');
  for (const quest of quests?.data.quests.filter((quest) => quest.status !== 'COMPLETED').slice(0, TEASED) ?? []) {
    earn.push({ key: quest.id, icon: 'flag', label: quest.name, value: `+${number(quest.points)}`, multiplier: quest.multiplier, panel: quests!.panel });
  }
  const checkin = ready<Checkin>('checkin');
  if (checkin?.data.canCheckin) {
    earn.push({ key: 'checkin', icon: 'calendar', label: t('checkin'), value: `+${number(checkin.data.todayReward)}`, multiplier: checkin.data.multiplier, panel: checkin.panel });
  }
  const referral = ready<{ rewards: { referrerReward: number } }>('referrals');
  if (referral?.data.rewards.referrerReward) {
    earn.push({ key: 'referrals', icon: 'users', label: t('referrals'), value: `+${number(referral.data.rewards.referrerReward)}`, panel: referral.panel });
  }
  const share = ready<ShareInfo>('share');
  if (share?.data.canShare) {
    earn.push({ key: 'share', icon: 'share', label: t('share'), value: `+${number(share.data.pointsPerShare)}`, multiplier: share.data.multiplier, panel: share.panel });
  }
  const games = ready<{ games: Game[] }>('games');
  const best = Math.max(0, ...(games?.data.games.flatMap((game) => (game.type === 'DAILY_CHECKIN' ? [] : game.prizes.map((prize) => prize.value))) ?? []));
  if (games && best > 0) earn.push({ key: 'games', icon: 'dice', label: t('games'), value: t('upTo', { n: best }), panel: games.panel });

  const rewards = ready<{ rewards: Reward[] }>('rewards');
  // What the member can have now first, then the nearest.
  const redeem: Way[] = [...(rewards?.data.rewards ?? [])].sort((a, b) => Number(b.canClaim) - Number(a.canClaim) || a.pointsCost - b.pointsCost)
    .slice(0, TEASED).map((reward) => ({ key: reward.id, icon: 'gift', label: reward.name, value: t('cost', { n: reward.pointsCost }), ready: reward.canClaim, panel: rewards!.panel }));

  return (
    <div>
      <div class="hero">
        {member.name && <p class="hello">{t('hello', { n: member.name })}</p>}
        <div class="muted">{t('balance')}</div>
        <div class="big" data-testid="balance">{number(member.points)} <span class="unit">{t('points')}</span></div>
        <LevelProgress init={init} />
      </div>
      {init.activeMultipliers.map((boost) => (
        <p class="boost" key={boost.name}><Icon name="bolt" />{t('boost', { n: boost.multiplier, x: boost.name, d: date(boost.endsAt) })}</p>
      ))}
      {shown.length > 0 && (
        <nav aria-label={t('tabs')}>
          <ul class="tiles">
            {shown.map((panel) => <li key={panel.id}><button class="tile" id={`pc-go-${panel.id}`} onClick={() => go(panel)}><Icon name={panel.icon} />{t(panel.id)}</button></li>)}
          </ul>
        </nav>
      )}
      <Ways title={t('waysToEarn')} ways={earn} go={go} />
      <Ways title={t('waysRedeem')} ways={redeem} go={go} />
    </div>
  );
}

/** The member's level and the way to the next; nothing when the project has no levels. */
function LevelProgress({ init: { level } }: { init: InitResponse }) {
  const { t, member } = useContext(Ctx);
  const total = member.totalPointsEarned;
  // Past the next threshold since init (a game won meanwhile), that is the level to show.
  const passed = level.next !== null && total >= level.next.minTotalPointsEarned;
  const name = passed ? level.next!.name : level.name;
  const next = passed ? null : level.next;
  if (!name && !next) return null;
  const from = level.minTotalPointsEarned;
  return (
    <div class="level" data-testid="level">
      {name && <b>{t('yourLevel', { x: name })}</b>}
      {next && (
        <>
          <div class="bar" role="progressbar" aria-valuemin={from} aria-valuemax={next.minTotalPointsEarned} aria-valuenow={total} aria-label={next.name}>
            <i style={{ width: `${Math.round(((total - from) / Math.max(1, next.minTotalPointsEarned - from)) * 100)}%` }} />
          </div>
          <div class="muted">{t('toNext', { n: next.minTotalPointsEarned - total, x: next.name })}</div>
        </>
      )}
    </div>
  );
}

function Ways({ title, ways, go }: { title: string; ways: Way[]; go: (panel: PanelDef) => void }) {
  const { t, number } = useContext(Ctx);
  if (ways.length === 0) return null;
  return (
    <section>
      <h3>{title}</h3>
      <ul class="list">
        {ways.map((way) => (
          <li key={way.key}>
            <button class="way" onClick={() => go(way.panel)}>
              <Icon name={way.icon} />
              {/* bdi: a shop's name keeps its own direction, and "+50" reads so in a right-to-left language too. */}
              <span class="grow"><bdi>{way.label}</bdi>{way.ready && <span class="tag">{t('canAfford')}</span>}</span>
              <b><bdi>{way.value}</bdi></b>
              {way.multiplier !== undefined && way.multiplier !== 1 && <bdi class="tag">×{number(way.multiplier)}</bdi>}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
