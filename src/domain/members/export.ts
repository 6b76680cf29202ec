import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { levelFor } from '../levels/member-level.ts';
import { projectContext } from '../project/project-context.ts';

/** One member as `members export` writes it: the columns `members import` reads back. */
export interface ExportedMember {
  externalId: string;
  email: string | null;
  name: string | null;
  balance: number;
  totalPointsEarned: number;
  level: number;
  levelName: string | null;
  joinedAt: string;
}

/**
 * The project's live members, oldest first, one at a time (a large project is never held in
 * memory whole). Erased members are left out: nothing about them is to leave the database.
 */
export function* exportMembers(db: Db, projectId: string): Generator<ExportedMember> {
  const { levels } = projectContext(db, projectId);
  const rows = stmt<[string, string | null, string | null, number, number, string, number]>(db, `SELECT external_id, email, name, points,
    total_points_earned, created_at, level_floor FROM members WHERE project_id = ? AND erased_at IS NULL ORDER BY id`).raw(true).iterate(projectId);
  for (const [externalId, email, name, balance, totalPointsEarned, joinedAt, floor] of rows) {
    yield { externalId, email, name, balance, totalPointsEarned, ...levelFor(levels, totalPointsEarned, floor), joinedAt };
  }
}
