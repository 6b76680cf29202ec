import * as v from 'valibot';
import { badRequest } from '../../shared/errors.ts';
import { httpUrl, multilineText } from '../../shared/value-schemas.ts';
import { catalogItem, defineKind } from './catalog-items.ts';
import { enumOf, flag, int, isoTime, label } from './item-fields.ts';

export const rewardSchema = catalogItem({
  name: label,
  description: v.optional(v.nullable(multilineText(2000)), null),
  imageUrl: v.optional(v.nullable(httpUrl), null),
  type: enumOf(['COUPON', 'PHYSICAL', 'DIGITAL', 'RAFFLE', 'CUSTOM']),
  pointsCost: int(0),
  /** null: unlimited. */
  stock: v.optional(v.nullable(int(0)), null),
  maxClaimsPerUser: v.optional(v.nullable(int(1)), null),
  minLevel: v.optional(int(0, 1000), 0),
  discountConfig: v.optional(v.nullable(v.strictObject({
    type: enumOf(['PERCENTAGE', 'FIXED_CART', 'FIXED_PRODUCT']),
    value: v.pipe(v.number('must be a number'), v.minValue(0, 'must be at least 0'), v.maxValue(1_000_000, 'must be at most 1000000')),
  })), null),
  /** What a DIGITAL reward reveals once claimed. */
  digitalContent: v.optional(v.nullable(multilineText(10_000)), null),
  expiresAt: v.optional(v.nullable(isoTime), null),
  isActive: v.optional(flag, true),
});

export type Reward = v.InferOutput<typeof rewardSchema>;
export type RewardType = Reward['type'];

export const rewards = defineKind(rewardSchema, {
  path: 'rewards',
  listKey: 'rewards',
  noun: 'reward',
  table: 'rewards',
  idPrefix: 'rwd',
  window: { ends: 'expiresAt' },
  check(item) {
    const discount = item.discountConfig;
    if (discount && item.type !== 'COUPON') throw badRequest('"discountConfig" applies only to COUPON rewards.');
    if (discount?.type === 'PERCENTAGE' && discount.value > 100) throw badRequest('"discountConfig.value" must be at most 100 for a PERCENTAGE discount.');
    if (item.digitalContent != null && item.type !== 'DIGITAL') throw badRequest('"digitalContent" applies only to DIGITAL rewards.');
  },
});
