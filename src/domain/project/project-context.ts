import type { Db } from '../../db/connection.ts';
import { cacheVersion } from '../../db/cache-version.ts';
import { stmt } from '../../db/statements.ts';
import { loadHotCatalog, type HotCatalog } from '../catalog/hot-catalog.ts';

/** What nearly every change of a project reads: its settings, time zone, expiry policy, hot catalog and subscribers. */
export interface ProjectContext extends HotCatalog {
  name: string;
  timeZone: string;
  pointsExpiryDays: number | null;
  /** The stored settings (JSON): getSettings() reads them with their defaults. */
  settingsJson: string;
  /** The active webhooks subscribed to each event type; a type nobody subscribes to is absent. */
  subscribers: ReadonlyMap<string, readonly string[]>;
}

/** A project that does not exist (yet) reads as one with nothing set; it is never cached. */
const NONE: ProjectContext = Object.freeze({
  name: '', timeZone: 'UTC', pointsExpiryDays: null, settingsJson: '{}', levels: [], criteriaBadges: [], multipliers: [], subscribers: new Map(),
});

function subscribersOf(db: Db, projectId: string): Map<string, string[]> {
  const byType = new Map<string, string[]>();
  for (const webhook of stmt<{ id: string; events: string }>(db, 'SELECT id, events FROM webhooks WHERE project_id = ? AND is_active = 1').all(projectId)) {
    for (const type of JSON.parse(webhook.events) as string[]) {
      const ids = byType.get(type);
      if (ids) ids.push(webhook.id);
      else byType.set(type, [webhook.id]);
    }
  }
  return byType;
}

function load(db: Db, projectId: string): ProjectContext | undefined {
  const row = stmt<[string, string, number | null, string]>(db, 'SELECT name, timezone, points_expiry_days, settings FROM projects WHERE id = ?')
    .raw(true).get(projectId);
  if (!row) return undefined;
  const [name, timeZone, pointsExpiryDays, settingsJson] = row;
  return { name, timeZone, pointsExpiryDays, settingsJson, ...loadHotCatalog(db, projectId), subscribers: subscribersOf(db, projectId) };
}

/**
 * An award reads the project's context four or five times (expiry, levels, criteria badges,
 * leaderboard day, subscribers) and it changes rarely, so each connection keeps it in memory per
 * project until src/db/cache-version.ts says otherwise: its writers (settings, the catalog,
 * webhooks) call cachedRowsChanged(), and another connection's commit (the CLI) is seen through
 * SQLite's data_version, read at most once per transaction.
 */
const caches = new WeakMap<Db, { version: number; byProject: Map<string, ProjectContext> }>();

export function projectContext(db: Db, projectId: string): ProjectContext {
  const version = cacheVersion(db);
  let cache = caches.get(db);
  if (cache?.version !== version) {
    cache = { version, byProject: new Map() };
    caches.set(db, cache);
  }
  let context = cache.byProject.get(projectId);
  if (!context) {
    context = load(db, projectId);
    if (!context) return NONE;
    cache.byProject.set(projectId, context);
  }
  return context;
}
