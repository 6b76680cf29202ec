import { badRequest } from '../../shared/errors.ts';
import { checkWindow, type CatalogKind } from './catalog-items.ts';

export const promoCodes: CatalogKind = {
  path: 'promo-codes',
  command: 'promo',
  listKey: 'promoCodes',
  noun: 'promo code',
  table: 'promo_codes',
  idPrefix: 'prm',
  fields: {
    code: 'text', description: 'text', rewardType: 'text', points: 'int', rewardId: 'text', maxRedemptions: 'int',
    startsAt: 'time', expiresAt: 'time', isActive: 'bool',
  },
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
};
