import { badRequest } from '../../shared/errors.ts';
import type { CatalogKind } from './catalog-items.ts';

export const rewards: CatalogKind = {
  path: 'rewards',
  listKey: 'rewards',
  noun: 'reward',
  table: 'rewards',
  idPrefix: 'rwd',
  fields: {
    name: 'text', description: 'text', imageUrl: 'text', type: 'text', pointsCost: 'int', stock: 'int', maxClaimsPerUser: 'int',
    minLevel: 'int', discountConfig: 'json', digitalContent: 'text', expiresAt: 'time', isActive: 'bool',
  },
  window: { ends: 'expiresAt' },
  check(item) {
    const discount = item.discountConfig as { type: string; value: number } | null;
    if (discount && item.type !== 'COUPON') throw badRequest('"discountConfig" applies only to COUPON rewards.');
    if (discount?.type === 'PERCENTAGE' && discount.value > 100) throw badRequest('"discountConfig.value" must be at most 100 for a PERCENTAGE discount.');
    if (item.digitalContent != null && item.type !== 'DIGITAL') throw badRequest('"digitalContent" applies only to DIGITAL rewards.');
  },
};
