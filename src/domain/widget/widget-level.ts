import type { Db } from '../../db/connection.ts';
import { projectContext } from '../project/project-context.ts';
import type { Level } from '../catalog/level-kind.ts';
import { reachedLevelIndex } from '../levels/member-level.ts';

/** The member's level and the next one, so the widget's home can show progress toward it. */
export interface WidgetLevel {
  /** 0 (name null, threshold 0) below every level the project defined. */
  level: number;
  name: string | null;
  minTotalPointsEarned: number;
  next: Pick<Level, 'level' | 'name' | 'minTotalPointsEarned'> | null;
}

/** `floor`: a level the member holds whatever their lifetime points (a tier kept from an import). */
export function widgetLevel(db: Db, projectId: string, totalPointsEarned: number, floor = 0): WidgetLevel {
  // Highest threshold first: the first one reached is the member's, the one before it the next.
  const levels = projectContext(db, projectId).levels;
  const index = reachedLevelIndex(levels, totalPointsEarned, floor);
  const reached = index === -1 ? undefined : levels[index];
  const next = levels[(index === -1 ? levels.length : index) - 1];
  return {
    level: reached?.level ?? 0,
    name: reached?.name ?? null,
    minTotalPointsEarned: reached?.minTotalPointsEarned ?? 0,
    next: next ? { level: next.level, name: next.name, minTotalPointsEarned: next.minTotalPointsEarned } : null,
  };
}
