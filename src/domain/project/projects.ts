import type { Db } from '../../db/connection.ts';
import { cachedRowsChanged, dataVersionThisTurn } from '../../db/cache-version.ts';
import { stmt } from '../../db/statements.ts';
import { atomically } from '../../db/transaction.ts';
import { notFound } from '../../shared/errors.ts';
import { newId, randomBase62 } from '../../shared/ids.ts';
import { issueKey, type IssuedKey } from './api-keys.ts';
import type { SecretBox } from '../../shared/secrets.ts';

export interface Project {
  id: string;
  name: string;
  pointsExpiryDays: number | null;
  timezone: string;
  createdAt: string;
}

interface ProjectRow {
  id: string;
  name: string;
  points_expiry_days: number | null;
  timezone: string;
  created_at: string;
}

export interface CreatedProject {
  project: { id: string; name: string };
  secretKey: string;
  publishableKey: string;
  widgetSecret: string;
}

const toProject = (row: ProjectRow): Project => ({
  id: row.id,
  name: row.name,
  pointsExpiryDays: row.points_expiry_days,
  timezone: row.timezone,
  createdAt: row.created_at,
});

const newWidgetSecret = () => `whsk_${randomBase62(32)}`;

/** Creates a project with its first secret key, publishable key and widget signing secret. */
export function createProject(db: Db, box: SecretBox, input: { name: string }, now: Date): CreatedProject {
  return atomically(db, () => {
    const id = newId('prj');
    const widgetSecret = newWidgetSecret();
    stmt(db, 'INSERT INTO projects (id, name, widget_secret, created_at) VALUES (?, ?, ?, ?)').run(
      id, input.name, box.seal(widgetSecret), now.toISOString(),
    );
    const secret: IssuedKey = issueKey(db, { projectId: id, type: 'secret' }, now);
    const publishable: IssuedKey = issueKey(db, { projectId: id, type: 'publishable' }, now);
    return { project: { id, name: input.name }, secretKey: secret.key, publishableKey: publishable.key, widgetSecret };
  });
}

export function listProjects(db: Db): Project[] {
  return (stmt(db, 'SELECT * FROM projects ORDER BY created_at, rowid').all() as ProjectRow[]).map(toProject);
}

/** Projects other than the demo shop's (`seed --demo`). */
export function countRealProjects(db: Db): number {
  return (stmt(db, 'SELECT count(*) AS n FROM projects WHERE demo = 0').get() as { n: number }).n;
}

export function getProject(db: Db, projectId: string): Project {
  const row = stmt(db, 'SELECT * FROM projects WHERE id = ?').get(projectId) as ProjectRow | undefined;
  if (!row) throw notFound(`No project with id "${projectId}"`);
  return toProject(row);
}

export interface ProjectSettings {
  name?: string;
  /** Points expire this many days after they are earned; null turns expiry off. */
  pointsExpiryDays?: number | null;
}

export function updateProject(db: Db, projectId: string, settings: ProjectSettings): Project {
  return atomically(db, () => {
    const current = getProject(db, projectId);
    stmt(db, 'UPDATE projects SET name = ?, points_expiry_days = ? WHERE id = ?').run(
      settings.name ?? current.name,
      settings.pointsExpiryDays === undefined ? current.pointsExpiryDays : settings.pointsExpiryDays,
      projectId,
    );
    cachedRowsChanged(db);
    return getProject(db, projectId);
  });
}

/** Replaces the widget signing secret; widgets signed with the old one stop working at once. */
export function rotateWidgetSecret(db: Db, box: SecretBox, projectId: string): string {
  return atomically(db, () => {
    getProject(db, projectId);
    const widgetSecret = newWidgetSecret();
    stmt(db, 'UPDATE projects SET widget_secret = ? WHERE id = ?').run(box.seal(widgetSecret), projectId);
    widgetSecretCaches.delete(db);
    return widgetSecret;
  });
}

/**
 * Decrypted widget signing secrets, cached per connection: every widget request needs one. Like
 * the key cache, it is dropped when this connection rotates a secret and whenever another
 * connection (the CLI) commits, which `PRAGMA data_version` reveals (dataVersionThisTurn).
 */
const widgetSecretCaches = new WeakMap<Db, { dataVersion: number; byProject: Map<string, string> }>();

/** The project's widget signing secret (`whsk_…`) in clear, for checking widget signatures. */
export function widgetSigningSecret(db: Db, box: SecretBox, projectId: string): string {
  const dataVersion = dataVersionThisTurn(db);
  let cache = widgetSecretCaches.get(db);
  if (!cache || cache.dataVersion !== dataVersion) {
    cache = { dataVersion, byProject: new Map() };
    widgetSecretCaches.set(db, cache);
  }
  let secret = cache.byProject.get(projectId);
  if (secret === undefined) {
    const sealed = stmt<string>(db, 'SELECT widget_secret FROM projects WHERE id = ?').pluck().get(projectId);
    if (sealed === undefined) throw notFound(`No project with id "${projectId}"`);
    secret = box.open(sealed);
    cache.byProject.set(projectId, secret);
  }
  return secret;
}
