import * as v from 'valibot';
import { multilineText } from '../../shared/value-schemas.ts';
import { catalogItem, checkWindow, defineKind } from './catalog-items.ts';
import { enumOf, flag, isoTime, label } from './item-fields.ts';

/**
 * The sources a multiplier event can apply to: every way a member earns points except an
 * operator's manual adjustment (`api`, the CLI's `points add`), which is an exact correction and
 * is never multiplied.
 */
export const EARNING_SOURCES = ['quest', 'event', 'game', 'checkin', 'share', 'order', 'community', 'referral', 'promo', 'welcome'] as const;
export type EarningSource = (typeof EARNING_SOURCES)[number];

export const multiplierSchema = catalogItem({
  name: label,
  description: v.optional(v.nullable(multilineText(2000)), null),
  multiplier: v.pipe(v.number('must be a number'), v.gtValue(1, 'must be greater than 1'), v.maxValue(100, 'must be at most 100')),
  startsAt: isoTime,
  endsAt: isoTime,
  /** null: every earning source. */
  sources: v.optional(v.nullable(v.pipe(v.array(enumOf(EARNING_SOURCES), 'must be an array'), v.minLength(1, 'must name at least one source'))), null),
  isActive: v.optional(flag, true),
});

export type MultiplierEvent = v.InferOutput<typeof multiplierSchema>;

export const multipliers = defineKind(multiplierSchema, {
  path: 'multipliers',
  listKey: 'multipliers',
  noun: 'multiplier event',
  table: 'multipliers',
  idPrefix: 'mul',
  window: { starts: 'startsAt', ends: 'endsAt' },
  check: (item) => checkWindow(item, 'startsAt', 'endsAt'),
});
