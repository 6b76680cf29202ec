import * as v from 'valibot';
import { badRequest } from '../../shared/errors.ts';
import { httpUrl, multilineText } from '../../shared/value-schemas.ts';
import { catalogItem, defineKind } from './catalog-items.ts';
import { enumOf, flag, int, label, minutes } from './item-fields.ts';

export const gameSchema = catalogItem({
  name: label,
  description: v.optional(v.nullable(multilineText(2000)), null),
  imageUrl: v.optional(v.nullable(httpUrl), null),
  type: enumOf(['SPIN_WHEEL', 'SLOTS', 'DICE', 'SCRATCH_CARD', 'DAILY_CHECKIN']),
  pointsCost: v.optional(int(0), 0),
  maxPlaysPerUser: v.optional(v.nullable(int(1)), null),
  dailyPlaysLimit: v.optional(v.nullable(int(1)), null),
  cooldownMinutes: v.optional(minutes, 0),
  /** `weight` is the relative chance of being drawn; 0 = shown on the wheel but never drawn. */
  prizes: v.optional(v.pipe(v.array(v.strictObject({ name: label, value: int(0), weight: int(0, 1_000_000) }), 'must be an array'),
    v.maxLength(100, 'must hold at most 100 prizes')), []),
  checkinPoints: v.optional(int(0), 0),
  streakBonuses: v.optional(v.pipe(v.array(v.strictObject({ day: int(1, 3660), bonus: int(0) }), 'must be an array'),
    v.maxLength(366, 'must hold at most 366 bonuses')), []),
  /** Whether the widget shows each prize's odds (weight / total weight); the server API always has the weights. */
  showOdds: v.optional(flag, true),
  isActive: v.optional(flag, true),
});

export type Game = v.InferOutput<typeof gameSchema>;
export type Prize = Game['prizes'][number];

export const games = defineKind(gameSchema, {
  path: 'games',
  listKey: 'games',
  noun: 'game',
  table: 'games',
  idPrefix: 'gam',
  check(item) {
    if (item.type === 'DAILY_CHECKIN') {
      if (item.prizes.length > 0) throw badRequest('"prizes" do not apply to a DAILY_CHECKIN game; use "checkinPoints" and "streakBonuses".');
    } else {
      if (item.prizes.length === 0) throw badRequest(`"prizes" must hold at least one prize for a ${item.type} game.`);
      if (item.prizes.every((prize) => prize.weight === 0)) throw badRequest('"prizes" must have at least one prize with a weight above 0.');
      if (item.streakBonuses.length > 0) throw badRequest('"streakBonuses" apply only to DAILY_CHECKIN games.');
    }
    const days = item.streakBonuses.map((bonus) => bonus.day);
    if (new Set(days).size !== days.length) throw badRequest('"streakBonuses" must name each day at most once.');
  },
});
