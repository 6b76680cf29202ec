import * as v from 'valibot';
import { badRequest } from '../../shared/errors.ts';
import { identifier, multilineText } from '../../shared/value-schemas.ts';
import { catalogItem, checkWindow, defineKind } from './catalog-items.ts';
import { enumOf, flag, int, isoTime, slug } from './item-fields.ts';

export const promoCodeSchema = catalogItem({
  /** What a member types; matched ignoring case. */
  code: slug(64),
  description: v.optional(v.nullable(multilineText(2000)), null),
  rewardType: enumOf(['POINTS', 'REWARD']),
  points: v.optional(v.nullable(int(1)), null),
  rewardId: v.optional(v.nullable(identifier(64)), null),
  maxRedemptions: v.optional(v.nullable(int(1)), null),
  startsAt: v.optional(v.nullable(isoTime), null),
  expiresAt: v.optional(v.nullable(isoTime), null),
  isActive: v.optional(flag, true),
});

export type PromoCode = v.InferOutput<typeof promoCodeSchema>;

export const promoCodes = defineKind(promoCodeSchema, {
  path: 'promo-codes',
  command: 'promo',
  listKey: 'promoCodes',
  noun: 'promo code',
  table: 'promo_codes',
  idPrefix: 'prm',
  unique: [{ field: 'code', nocase: true }],
  references: { rewardId: { table: 'rewards', noun: 'reward' } },
  window: { starts: 'startsAt', ends: 'expiresAt' },
  check(item) {
    checkWindow(item, 'startsAt', 'expiresAt');
    if (item.rewardType === 'POINTS' && (item.points == null || item.rewardId != null)) {
      throw badRequest('A POINTS promo code needs "points" and no "rewardId".');
    }
    if (item.rewardType === 'REWARD' && (item.rewardId == null || item.points != null)) {
      throw badRequest('A REWARD promo code needs "rewardId" and no "points".');
    }
  },
});
