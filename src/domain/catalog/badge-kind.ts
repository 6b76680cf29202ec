import * as v from 'valibot';
import { httpUrl, multilineText } from '../../shared/value-schemas.ts';
import { catalogItem, defineKind } from './catalog-items.ts';
import { enumOf, int, label } from './item-fields.ts';

export const BADGE_CRITERIA = ['totalPointsEarned', 'currentStreak', 'questsCompleted', 'referralsConverted'] as const;
export type BadgeCriterion = (typeof BADGE_CRITERIA)[number];

export const badgeSchema = catalogItem({
  name: label,
  description: v.optional(v.nullable(multilineText(2000)), null),
  imageUrl: v.optional(v.nullable(httpUrl), null),
  rarity: v.optional(enumOf(['COMMON', 'UNCOMMON', 'RARE', 'EPIC', 'LEGENDARY']), 'COMMON'),
  /** Awarded automatically once the member's counter reaches the threshold; null: awarded by hand or by a quest. */
  criteria: v.optional(v.nullable(v.strictObject({ type: enumOf(BADGE_CRITERIA), threshold: int(1) })), null),
});

export type Badge = v.InferOutput<typeof badgeSchema>;

export const badges = defineKind(badgeSchema, {
  path: 'badges',
  listKey: 'badges',
  noun: 'badge',
  table: 'badges',
  idPrefix: 'bdg',
});
