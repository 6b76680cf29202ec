import { useContext, useState } from 'preact/hooks';
import { Ctx } from '../context.ts';
import { ErrorNote, useAction, type PanelProps } from './common.tsx';

export interface Checkin {
  gameId: string;
  canCheckin: boolean; currentStreak: number; longestStreak: number; lastCheckinAt: string | null; todayReward: number;
  streakBonus: number | null; nextStreakBonus: { day: number; bonus: number; daysAway: number } | null;
}
/** pointsAwarded already holds the streak bonus. */
interface Done { success: boolean; pointsAwarded: number; streakBonus: number | null; newStreak: number; member: { points: number; currentStreak: number } }

/** The daily check-in: today's reward, the streak, and the next streak bonus. */
export function CheckinPanel({ data, reload }: PanelProps<Checkin>) {
  const { t, number, call, setPoints } = useContext(Ctx);
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
      <div class="big">🔥 {number(done?.newStreak ?? data.currentStreak)}</div>
      <div class="muted">{t('streak')}</div>
      <p>{t('todayReward', { n: data.todayReward })}</p>
      {data.nextStreakBonus && <p class="muted">{t('nextBonus', { n: data.nextStreakBonus.bonus, d: data.nextStreakBonus.daysAway })}</p>}
      {done && <p class="note" role="status">+{number(done.pointsAwarded)} {t('points')}</p>}
      <ErrorNote text={error} />
      <button class="btn" disabled={busy || !data.canCheckin || done !== null} onClick={checkIn}>{data.canCheckin && !done ? t('checkinBtn') : t('checkedIn')}</button>
    </div>
  );
}
