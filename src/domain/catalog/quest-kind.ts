import { badRequest } from '../../shared/errors.ts';
import { checkWindow, type CatalogKind } from './catalog-items.ts';

export type CompletionMode = 'MANUAL' | 'AUTOMATED' | 'SELF_REPORT';

export interface Quest {
  id: string;
  key: string | null;
  name: string;
  description: string | null;
  action: string | null;
  completionMode: CompletionMode;
  targetCount: number;
  points: number;
  badgeId: string | null;
  repeatable: boolean;
  cooldownMinutes: number;
  imageUrl: string | null;
  /** Where the shopper does the quest; the widget opens it. */
  linkUrl: string | null;
  startsAt: string | null;
  endsAt: string | null;
  isActive: boolean;
  archivedAt: string | null;
}

export const quests: CatalogKind = {
  path: 'quests',
  listKey: 'quests',
  noun: 'quest',
  table: 'quests',
  idPrefix: 'qst',
  fields: {
    name: 'text', description: 'text', action: 'text', completionMode: 'text', targetCount: 'int', points: 'int', badgeId: 'text',
    repeatable: 'bool', cooldownMinutes: 'int', imageUrl: 'text', linkUrl: 'text', startsAt: 'time', endsAt: 'time', isActive: 'bool',
  },
  references: { badgeId: { table: 'badges', noun: 'badge' } },
  window: { starts: 'startsAt', ends: 'endsAt' },
  check(item) {
    checkWindow(item, 'startsAt', 'endsAt');
    if (item.completionMode === 'AUTOMATED' && !item.action) throw badRequest('"action" is required for an AUTOMATED quest: it is the event name that advances it.');
  },
};
