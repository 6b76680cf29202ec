import * as v from 'valibot';
import { stmt } from '../../db/statements.ts';
import { badRequest } from '../../shared/errors.ts';
import { multilineText } from '../../shared/value-schemas.ts';
import { catalogItem, defineKind } from './catalog-items.ts';
import { int, label } from './item-fields.ts';

export const levelSchema = catalogItem({
  level: int(0, 1000),
  name: label,
  description: v.optional(v.nullable(multilineText(2000)), null),
  minTotalPointsEarned: int(0),
});

export type Level = v.InferOutput<typeof levelSchema>;

export const levels = defineKind(levelSchema, {
  path: 'levels',
  listKey: 'levels',
  noun: 'level',
  table: 'levels',
  idPrefix: 'lvl',
  unique: [{ field: 'level' }],
  order: 'level, id',
  /** Levels are ordered: a higher level never needs fewer lifetime points than a lower one. */
  check(item, { db, projectId, id }) {
    const clash = stmt<{ level: number; min_total_points_earned: number }>(db, `SELECT level, min_total_points_earned FROM levels
      WHERE project_id = ? AND archived_at IS NULL AND id IS NOT ?
        AND ((level < ? AND min_total_points_earned > ?) OR (level > ? AND min_total_points_earned < ?)) LIMIT 1`)
      .get(projectId, id ?? null, item.level, item.minTotalPointsEarned, item.level, item.minTotalPointsEarned);
    if (clash) {
      throw badRequest(`"minTotalPointsEarned" ${item.minTotalPointsEarned} is out of order: level ${clash.level} needs ${clash.min_total_points_earned}.`);
    }
  },
});
