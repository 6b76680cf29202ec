import type { Db } from '../../db/connection.ts';
import { liveItems } from './catalog-items.ts';
import { badges, type Badge } from './badge-kind.ts';
import { levels, type Level } from './level-kind.ts';
import { multipliers, type MultiplierEvent } from './multiplier-kind.ts';

/** The parts of a project's catalog that every award reads (cached with the project's context). */
export interface HotCatalog {
  /** Highest threshold first. */
  levels: Level[];
  /** Badges with automatic criteria. */
  criteriaBadges: Badge[];
  multipliers: MultiplierEvent[];
}

export function loadHotCatalog(db: Db, projectId: string): HotCatalog {
  return {
    levels: liveItems(db, levels, projectId).sort((a, b) => b.minTotalPointsEarned - a.minTotalPointsEarned || b.level - a.level),
    criteriaBadges: liveItems(db, badges, projectId).filter((badge) => badge.criteria !== null),
    multipliers: liveItems(db, multipliers, projectId),
  };
}
