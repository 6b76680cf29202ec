import { badRequest } from '../../shared/errors.ts';
import type { CatalogKind } from './catalog-items.ts';

export type GameType = 'SPIN_WHEEL' | 'SLOTS' | 'DICE' | 'SCRATCH_CARD' | 'DAILY_CHECKIN';

export interface Prize {
  name: string;
  value: number;
  /** Relative chance of being drawn; 0 = shown on the wheel but never drawn. */
  weight: number;
}

export interface Game {
  id: string;
  name: string;
  type: GameType;
  pointsCost: number;
  maxPlaysPerUser: number | null;
  dailyPlaysLimit: number | null;
  cooldownMinutes: number;
  prizes: Prize[];
  checkinPoints: number;
  streakBonuses: { day: number; bonus: number }[];
  isActive: boolean;
  archivedAt: string | null;
}

export const games: CatalogKind = {
  path: 'games',
  listKey: 'games',
  noun: 'game',
  table: 'games',
  idPrefix: 'gam',
  fields: {
    name: 'text', description: 'text', imageUrl: 'text', type: 'text', pointsCost: 'int', maxPlaysPerUser: 'int', dailyPlaysLimit: 'int',
    cooldownMinutes: 'int', prizes: 'json', checkinPoints: 'int', streakBonuses: 'json', isActive: 'bool',
  },
  check(item) {
    const prizes = item.prizes as { weight: number }[];
    if (item.type === 'DAILY_CHECKIN') {
      if (prizes.length > 0) throw badRequest('"prizes" do not apply to a DAILY_CHECKIN game; use "checkinPoints" and "streakBonuses".');
    } else {
      if (prizes.length === 0) throw badRequest(`"prizes" must hold at least one prize for a ${String(item.type)} game.`);
      if (prizes.every((prize) => prize.weight === 0)) throw badRequest('"prizes" must have at least one prize with a weight above 0.');
      if ((item.streakBonuses as unknown[]).length > 0) throw badRequest('"streakBonuses" apply only to DAILY_CHECKIN games.');
    }
    const days = (item.streakBonuses as { day: number }[]).map((bonus) => bonus.day);
    if (new Set(days).size !== days.length) throw badRequest('"streakBonuses" must name each day at most once.');
  },
};
