import type { CatalogKind } from './catalog-items.ts';

export type BadgeCriterion = 'totalPointsEarned' | 'currentStreak' | 'questsCompleted' | 'referralsConverted';
export type Rarity = 'COMMON' | 'UNCOMMON' | 'RARE' | 'EPIC' | 'LEGENDARY';

export interface Badge {
  id: string;
  name: string;
  description: string | null;
  imageUrl: string | null;
  rarity: Rarity;
  criteria: { type: BadgeCriterion; threshold: number } | null;
  archivedAt: string | null;
}

export const badges: CatalogKind = {
  path: 'badges',
  listKey: 'badges',
  noun: 'badge',
  table: 'badges',
  idPrefix: 'bdg',
  fields: { name: 'text', description: 'text', imageUrl: 'text', rarity: 'text', criteria: 'json' },
};
