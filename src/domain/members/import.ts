import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { badRequest } from '../../shared/errors.ts';
import { levelFor } from '../levels/member-level.ts';
import { postToLedger } from '../ledger/ledger.ts';
import { projectContext } from '../project/project-context.ts';
import { findMember, memberById, updateMember, upsertMember } from './members.ts';
import { moveJoinDate } from '../analytics/figures.ts';

/**
 * The opening balance of an imported member is ONE ledger entry: type EARNED, source `api`,
 * actor `import`, reference `opening-balance`. It is how an import recognises a member it has
 * already given a balance to, so a re-run never pays twice; and as an ordinary award it keeps the
 * invariant (balance and lifetime points are sums of the ledger).
 */
export const OPENING_BALANCE = { actor: 'import', referenceId: 'opening-balance' } as const;

/** One member of an import file, validated (src/schemas/member-import.ts). */
export interface ImportedMember {
  externalId: string;
  email?: string | undefined;
  name?: string | undefined;
  balance: number;
  /** A level number or name: checked against the level the balance gives, never forced. */
  level?: number | string | undefined;
  joinedAt?: Date | undefined;
  pointsExpireAt?: Date | undefined;
}

export interface ImportOutcome {
  member: 'created' | 'updated' | 'unchanged';
  /** Points of the opening-balance entry written now (0 when none was). */
  credited: number;
  /** What the import could not do as the file says, the line still imported (a level that does not follow, a second balance). */
  warnings: string[];
}

/** The project's level named by number or name, or a message saying there is none. */
function levelNamed(db: Db, projectId: string, wanted: number | string): { level: number } | string {
  const { levels } = projectContext(db, projectId);
  // Level 0 is everyone below the first level (what an export writes for them).
  if (wanted === 0 || wanted === '0') return { level: 0 };
  const found = levels.find((l) => (typeof wanted === 'number' ? l.level === wanted : l.name.toLowerCase() === wanted.toLowerCase()
    || String(l.level) === wanted));
  return found ?? `level "${wanted}" is not one of the project's levels (${levels.map((l) => `${l.level} ${l.name}`).join(', ') || 'it has none'})`;
}

const openingBalance = (db: Db, memberId: number) =>
  stmt<number>(db, 'SELECT amount FROM transactions WHERE member_id = ? AND actor = ? AND reference_id = ?').pluck()
    .get(memberId, OPENING_BALANCE.actor, OPENING_BALANCE.referenceId);

/**
 * Creates or updates one member from an import line, in one transaction (a savepoint inside the
 * caller's batch, so a failing line undoes only itself). Re-running a file changes nothing: a
 * profile that already matches is not written (no member.updated event), and the opening balance
 * is posted only to a member who has none. Throws AppError for a line that cannot be imported.
 */
export function importMember(db: Db, projectId: string, line: ImportedMember, now: Date): ImportOutcome {
  return atomically(db, () => {
    const warnings: string[] = [];
    const wantedLevel = line.level === undefined ? undefined : levelNamed(db, projectId, line.level);
    if (typeof wantedLevel === 'string') warnings.push(wantedLevel);
    if (line.pointsExpireAt && line.pointsExpireAt <= now) throw badRequest('"pointsExpireAt" must be in the future');
    const profile = { ...(line.email !== undefined ? { email: line.email } : {}), ...(line.name !== undefined ? { name: line.name } : {}) };
    const existing = findMember(db, projectId, line.externalId);
    let state: ImportOutcome['member'] = 'unchanged';
    let row = existing;
    if (!existing) {
      upsertMember(db, projectId, { externalId: line.externalId, ...profile }, now);
      row = findMember(db, projectId, line.externalId)!;
      if (line.joinedAt) {
        // When they joined the old system: member lists sort by it.
        stmt(db, 'UPDATE members SET created_at = ? WHERE id = ?').run(line.joinedAt.toISOString(), row.id);
        moveJoinDate(db, projectId, now, line.joinedAt);
      }
      state = 'created';
    } else if ((profile.email !== undefined && profile.email !== existing.email) || (profile.name !== undefined && profile.name !== existing.name)) {
      updateMember(db, projectId, line.externalId, profile, now);
      state = 'updated';
    }
    let credited = 0;
    const previous = state === 'created' ? undefined : openingBalance(db, row!.id);
    if (previous !== undefined) {
      if (previous !== line.balance) warnings.push(`already has an opening balance of ${previous} from an earlier import; the file's ${line.balance} was not added`);
    } else if (line.balance > 0) {
      postToLedger(db, memberById(db, row!.id), {
        amount: line.balance, type: 'EARNED', source: 'api', ...OPENING_BALANCE,
        description: 'Opening balance (imported)', expiresAt: line.pointsExpireAt,
      }, now);
      credited = line.balance;
    }
    if (wantedLevel !== undefined && typeof wantedLevel !== 'string') {
      const reached = levelFor(projectContext(db, projectId).levels, memberById(db, row!.id).total_points_earned);
      if (reached.level !== wantedLevel.level) {
        warnings.push(`is at level ${reached.level}${reached.levelName ? ` (${reached.levelName})` : ''}, not ${line.level}: levels follow lifetime points, and the opening balance is all of them`);
      }
    }
    return { member: state, credited, warnings };
  });
}
