import type { Db } from '../../db/connection.ts';
import { projectContext } from '../project/project-context.ts';

export interface MemberLevel {
  /** 0 when no level's threshold is reached: level 0 is everyone. */
  level: number;
  levelName: string | null;
}

/** The highest level whose threshold the lifetime earnings reach. */
export function levelFor(db: Db, projectId: string, totalPointsEarned: number): MemberLevel {
  const reached = projectContext(db, projectId).levels.find((level) => level.minTotalPointsEarned <= totalPointsEarned);
  return reached ? { level: reached.level, levelName: reached.name } : { level: 0, levelName: null };
}
