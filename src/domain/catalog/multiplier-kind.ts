import { checkWindow, type CatalogKind } from './catalog-items.ts';

export const multipliers: CatalogKind = {
  path: 'multipliers',
  listKey: 'multipliers',
  noun: 'multiplier event',
  table: 'multipliers',
  idPrefix: 'mul',
  fields: { name: 'text', description: 'text', multiplier: 'real', startsAt: 'time', endsAt: 'time', sources: 'json', isActive: 'bool' },
  window: { starts: 'startsAt', ends: 'endsAt' },
  check: (item) => checkWindow(item, 'startsAt', 'endsAt'),
};
