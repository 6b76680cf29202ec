import * as v from 'valibot';
import { httpUrl, identifier, multilineText } from '../../shared/value-schemas.ts';
import { badRequest } from '../../shared/errors.ts';
import { catalogItem, checkWindow, defineKind } from './catalog-items.ts';
import { enumOf, flag, int, isoTime, label, minutes, slug } from './item-fields.ts';

export const questSchema = catalogItem({
  name: label,
  description: v.optional(v.nullable(multilineText(2000)), null),
  /** The event name that advances an AUTOMATED quest. */
  action: v.optional(v.nullable(slug(100)), null),
  completionMode: enumOf(['MANUAL', 'AUTOMATED', 'SELF_REPORT']),
  targetCount: v.optional(int(1, 1_000_000), 1),
  points: v.optional(int(0), 0),
  badgeId: v.optional(v.nullable(identifier(64)), null),
  repeatable: v.optional(flag, false),
  cooldownMinutes: v.optional(minutes, 0),
  imageUrl: v.optional(v.nullable(httpUrl), null),
  /** Where the shopper does the quest (a review page, the shop's social account); the widget links to it. */
  linkUrl: v.optional(v.nullable(httpUrl), null),
  startsAt: v.optional(v.nullable(isoTime), null),
  endsAt: v.optional(v.nullable(isoTime), null),
  isActive: v.optional(flag, true),
});

export type Quest = v.InferOutput<typeof questSchema>;

export const quests = defineKind(questSchema, {
  path: 'quests',
  listKey: 'quests',
  noun: 'quest',
  table: 'quests',
  idPrefix: 'qst',
  references: { badgeId: { table: 'badges', noun: 'badge' } },
  window: { starts: 'startsAt', ends: 'endsAt' },
  check(item) {
    checkWindow(item, 'startsAt', 'endsAt');
    if (item.completionMode === 'AUTOMATED' && !item.action) throw badRequest('"action" is required for an AUTOMATED quest: it is the event name that advances it.');
  },
});
