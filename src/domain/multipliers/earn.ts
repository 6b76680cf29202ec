import type { Db } from '../../db/connection.ts';
import { hotCatalog } from '../catalog/hot-catalog.ts';
import type { EarningSource, MultiplierEvent } from '../catalog/multiplier-kind.ts';
import { postToLedger, type Transaction } from '../ledger/ledger.ts';
import type { Member, MemberRow } from '../members/members.ts';

/** The multiplier events applying now to `source`, highest first. */
export function activeMultipliers(db: Db, projectId: string, now: Date, source?: EarningSource): MultiplierEvent[] {
  const at = now.toISOString();
  return hotCatalog(db, projectId).multipliers
    .filter((event) => event.isActive && event.startsAt <= at && at < event.endsAt && (!source || !event.sources || event.sources.includes(source)))
    .sort((a, b) => b.multiplier - a.multiplier);
}

export interface Earning {
  basePoints: number;
  source: EarningSource;
  actor: string;
  description?: string | undefined;
  referenceId?: string | undefined;
  metadata?: Record<string, unknown> | undefined;
  expiresAt?: Date | undefined;
}

export interface Earned {
  /** null when there was nothing to pay (0 base points). */
  transaction: Transaction | null;
  member: Member | null;
  basePoints: number;
  pointsAwarded: number;
  multiplier: number;
  /** The multiplier event that applied, if any. */
  multiplierEvent: { id: string; name: string; multiplier: number } | null;
}

/**
 * The one way every earning source pays a member. The highest multiplier event active now for
 * the source applies (they never stack): pointsAwarded = round(basePoints × multiplier), rounded
 * to the nearest whole point with halves rounded up. A multiplied award records basePoints, the
 * multiplier and the event in the transaction's metadata, so history shows why it was larger.
 */
export function earn(db: Db, member: MemberRow, earning: Earning, now: Date): Earned {
  const event = activeMultipliers(db, member.project_id, now, earning.source)[0];
  const multiplier = event?.multiplier ?? 1;
  const pointsAwarded = Math.round(earning.basePoints * multiplier);
  const applied = event ? { id: event.id, name: event.name, multiplier: event.multiplier } : null;
  const result = { basePoints: earning.basePoints, pointsAwarded, multiplier, multiplierEvent: applied };
  if (pointsAwarded <= 0) return { ...result, transaction: null, member: null };
  const { basePoints, ...posting } = earning;
  const metadata = applied
    ? { ...earning.metadata, basePoints, multiplier, multiplierEventId: applied.id, multiplierEventName: applied.name }
    : earning.metadata;
  const posted = postToLedger(db, member, { ...posting, amount: pointsAwarded, type: 'EARNED', metadata }, now);
  return { ...result, ...posted };
}
