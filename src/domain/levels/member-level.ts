import type { Level } from '../catalog/level-kind.ts';

export interface MemberLevel {
  /** 0 when no level's threshold is reached: level 0 is everyone. */
  level: number;
  levelName: string | null;
}

/**
 * The index in `levels` (highest threshold first, as the project's context holds them) of the
 * highest level whose threshold the lifetime earnings reach, or of the member's floor (a tier kept
 * from another programme, migrations/0029) when that is higher; -1 below every level.
 */
export const reachedLevelIndex = (levels: readonly Level[], totalPointsEarned: number, floor = 0): number =>
  levels.findIndex((level) => level.minTotalPointsEarned <= totalPointsEarned || (floor > 0 && level.level <= floor));

/** The member's level (reachedLevelIndex). */
export function levelFor(levels: readonly Level[], totalPointsEarned: number, floor = 0): MemberLevel {
  const reached = levels[reachedLevelIndex(levels, totalPointsEarned, floor)];
  return reached ? { level: reached.level, levelName: reached.name } : { level: 0, levelName: null };
}
