import { useContext, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import type { Availability } from '../api.ts';
import { closedText, pointsText } from './words.ts';
import { Icon } from '../icons.tsx';
import { FIRE } from './section-icons.ts';
import { ErrorNote, useAction, type PanelProps } from './common.tsx';

export interface Checkin {
  gameId: string;
  canCheckin: boolean; currentStreak: number; longestStreak: number; lastCheckinAt: string | null; todayReward: number;
  streakBonus: number | null; nextStreakBonus: { day: number; bonus: number; daysAway: number } | null;
  /** Applies to today's reward now; `availability` says when the next check-in opens. */
  multiplier: number; availability: Availability;
}
/** pointsAwarded already holds the streak bonus. */
interface Done { success: boolean; pointsAwarded: number; basePoints: number; multiplier: number; streakBonus: number | null; newStreak: number; member: { points: number; currentStreak: number } }

/** The daily check-in: today's reward, the streak, and the next streak bonus. */
export function CheckinPanel({ data, reload }: PanelProps<Checkin>) {
  const { t, number, date, call, setPoints } = useContext(Ctx);
  const { busy, error, run } = useAction();
  const [done, setDone] = useState<Done | null>(null);
  const checkIn = () => run(async () => {
    const result = await call<Done>('POST', `/games/${encodeURIComponent(data.gameId)}/checkin`);
    setPoints(result.member.points, { currentStreak: result.member.currentStreak });
    setDone(result);
    reload();
  });
  return (
    <div>
      <div class="big"><Icon name="fire" d={FIRE} />{number(done?.newStreak ?? data.currentStreak)}</div>
      <div class="muted">{t('streak')}</div>
      <p>{data.multiplier === 1 ? t('todayReward', { n: data.todayReward }) : `${t('checkin')}: ${pointsText(t, number, data.todayReward, data.multiplier)}`}</p>
      {data.nextStreakBonus && <p class="muted">{t('nextBonus', { n: data.nextStreakBonus.bonus, d: data.nextStreakBonus.daysAway })}</p>}
      {done && <p class="note" role="status">+{pointsText(t, number, done.basePoints, done.multiplier, done.pointsAwarded)}</p>}
      <ErrorNote text={error} />
      <button class="btn" disabled={busy || !data.canCheckin || done !== null} onClick={checkIn}>{data.canCheckin && !done ? t('checkinBtn') : t('checkedIn')}</button>
      <p class="muted">{closedText(t, date, data.availability)}</p>
    </div>
  );
}
