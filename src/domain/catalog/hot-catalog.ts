import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { liveItems } from './catalog-items.ts';
import { badges, type Badge } from './badge-kind.ts';
import { levels, type Level } from './level-kind.ts';
import { multipliers, type MultiplierEvent } from './multiplier-kind.ts';

/** The parts of a project's catalog, and of its settings, that every award reads. */
export interface HotCatalog {
  version: string;
  /**
   * Read with the version on every call, never cached: settings change without a new catalog
   * version. Reading them here saves an award two more reads of the project's row.
   */
  timeZone: string;
  pointsExpiryDays: number | null;
  /** Highest threshold first. */
  levels: Level[];
  /** Badges with automatic criteria. */
  criteriaBadges: Badge[];
  multipliers: MultiplierEvent[];
}

/**
 * Levels, badge criteria and multiplier events are read on every award but change rarely, so each
 * connection keeps them in memory per project. Every catalog change writes a new random
 * `projects.catalog_version` in its own transaction; checking that one value (a primary-key read)
 * tells whether the copy is current, and because the check reads inside the caller's transaction
 * a rolled-back change, or one committed by another process (the CLI), is never missed.
 */
const caches = new WeakMap<Db, Map<string, HotCatalog>>();

export function hotCatalog(db: Db, projectId: string): HotCatalog {
  const [version, timeZone, pointsExpiryDays] = stmt<[string, string, number | null]>(db,
    'SELECT catalog_version, timezone, points_expiry_days FROM projects WHERE id = ?').raw(true).get(projectId) ?? ['', 'UTC', null];
  let byProject = caches.get(db);
  if (!byProject) caches.set(db, (byProject = new Map()));
  const cached = byProject.get(projectId);
  if (cached?.version === version) {
    cached.timeZone = timeZone;
    cached.pointsExpiryDays = pointsExpiryDays;
    return cached;
  }
  const loaded: HotCatalog = {
    version,
    timeZone,
    pointsExpiryDays,
    levels: liveItems(db, levels, projectId).sort((a, b) => b.minTotalPointsEarned - a.minTotalPointsEarned || b.level - a.level),
    criteriaBadges: liveItems(db, badges, projectId).filter((badge) => badge.criteria !== null),
    multipliers: liveItems(db, multipliers, projectId),
  };
  byProject.set(projectId, loaded);
  return loaded;
}
