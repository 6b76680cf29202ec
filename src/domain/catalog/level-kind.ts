import { stmt } from '../../db/statements.ts';
import { badRequest } from '../../shared/errors.ts';
import type { CatalogKind } from './catalog-items.ts';

export const levels: CatalogKind = {
  path: 'levels',
  listKey: 'levels',
  noun: 'level',
  table: 'levels',
  idPrefix: 'lvl',
  fields: { level: 'int', name: 'text', description: 'text', minTotalPointsEarned: 'int' },
  unique: [{ field: 'level' }],
  order: 'level, id',
  /** Levels are ordered: a higher level never needs fewer lifetime points than a lower one. */
  check(item, { db, projectId, id }) {
    const clash = stmt<{ level: number; min_total_points_earned: number }>(db, `SELECT level, min_total_points_earned FROM levels
      WHERE project_id = ? AND archived_at IS NULL AND id IS NOT ?
        AND ((level < ? AND min_total_points_earned > ?) OR (level > ? AND min_total_points_earned < ?)) LIMIT 1`)
      .get(projectId, id ?? null, item.level, item.minTotalPointsEarned, item.level, item.minTotalPointsEarned);
    if (clash) {
      throw badRequest(`"minTotalPointsEarned" ${String(item.minTotalPointsEarned)} is out of order: level ${clash.level} needs ${clash.min_total_points_earned}.`);
    }
  },
};
