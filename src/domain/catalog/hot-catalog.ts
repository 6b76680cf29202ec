import type { Db } from '../../db/connection.ts';
import { liveItems } from './catalog-items.ts';
import { badges, type Badge } from './badge-kind.ts';
import { levels } from './level-kind.ts';
import { multipliers } from './multiplier-kind.ts';

export interface LevelDefinition {
  level: number;
  name: string;
  minTotalPointsEarned: number;
}

export interface MultiplierEvent {
  id: string;
  name: string;
  multiplier: number;
  startsAt: string;
  endsAt: string;
  /** null: every earning source. */
  sources: string[] | null;
  isActive: boolean;
}

/** The parts of a project's catalog that every award reads (cached with the project's context). */
export interface HotCatalog {
  /** Highest threshold first. */
  levels: LevelDefinition[];
  /** Badges with automatic criteria. */
  criteriaBadges: Badge[];
  multipliers: MultiplierEvent[];
}

export function loadHotCatalog(db: Db, projectId: string): HotCatalog {
  return {
    levels: (liveItems(db, levels, projectId) as unknown as LevelDefinition[]).sort((a, b) => b.minTotalPointsEarned - a.minTotalPointsEarned || b.level - a.level),
    criteriaBadges: (liveItems(db, badges, projectId) as unknown as Badge[]).filter((badge) => badge.criteria !== null),
    multipliers: liveItems(db, multipliers, projectId) as unknown as MultiplierEvent[],
  };
}
