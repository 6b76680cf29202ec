import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { type Page, pageOf } from '../../shared/page.ts';
import { DAY_MS } from '../../shared/clock.ts';
import { projectTimeZone, shiftDate, wallClockInstant } from '../project/calendar.ts';

/** Who made a change: an operator (the admin), the CLI, or a secret key (the server API). */
export interface AuditActor {
  type: 'operator' | 'cli' | 'api';
  /** The operator's id, the key's id, or the OS user who ran the CLI. */
  id: string;
  /** The operator's email, the key's display prefix, or "cli". */
  label: string;
}

/** What changed, in a few fields: never a secret, never a member's personal data (summary.ts). */
export interface AuditSummary {
  before?: unknown;
  after?: unknown;
}

export interface AuditRecord {
  projectId: string | null;
  actor: AuditActor;
  /** The route (`POST /members/:externalId/points`) or the CLI command (`keys create`). */
  action: string;
  /** What it changed: an id, a member's externalId; empty when nothing names it. */
  target: string;
  summary: AuditSummary;
}

/** An entry as the log lists it: the record, numbered and dated. */
export interface AuditEntry extends Omit<AuditRecord, 'projectId'> {
  id: number;
  at: string;
}

/** How long entries are kept unless the server says otherwise (serve --audit-retention). */
export const DEFAULT_AUDIT_RETENTION_MS = 400 * DAY_MS;

/** Text fields are cut here, so one entry stays small whatever a request carried. */
const MAX_FIELD = 200;

/**
 * Appends an entry. Must run in the change's own transaction (the route helper's write, the CLI's
 * commit hook), so an entry exists if and only if its change was committed.
 */
export function recordAudit(db: Db, record: AuditRecord, now: Date): void {
  stmt(db, `INSERT INTO audit_log (project_id, at, actor_type, actor_id, actor_label, action, target, summary)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?)`).run(record.projectId, now.toISOString(), record.actor.type, record.actor.id.slice(0, MAX_FIELD),
    record.actor.label.slice(0, MAX_FIELD), record.action.slice(0, MAX_FIELD), record.target.slice(0, MAX_FIELD), JSON.stringify(record.summary));
}

export interface AuditFilter {
  /** An actor's id or label (an operator's email, a key's prefix, "cli"), or its type. */
  actor?: string | undefined;
  /** The action's start: `PATCH /project`, `POST /catalog`, `keys`. */
  action?: string | undefined;
  target?: string | undefined;
  /** ISO instants, `from` included and `to` excluded. */
  from?: string | undefined;
  to?: string | undefined;
}

interface AuditRow {
  id: number;
  at: string;
  actor_type: AuditActor['type'];
  actor_id: string;
  actor_label: string;
  action: string;
  target: string;
  summary: string;
}

const toEntry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  at: row.at,
  actor: { type: row.actor_type, id: row.actor_id, label: row.actor_label },
  action: row.action,
  target: row.target,
  summary: JSON.parse(row.summary) as AuditSummary,
});

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

// The project's entries newest first through audit_log_project; each filter is a plain condition on them.
const FILTERED = `FROM audit_log WHERE project_id = @projectId
  AND (@actor IS NULL OR actor_id = @actor OR actor_label = @actor COLLATE NOCASE OR actor_type = @actor)
  AND (@action IS NULL OR action LIKE @action ESCAPE '\\')
  AND (@target IS NULL OR target = @target)
  AND (@from IS NULL OR at >= @from) AND (@to IS NULL OR at < @to)`;

const dayStart = (day: string, timeZone: string) => wallClockInstant(`${day}T00:00:00`, timeZone).toISOString();

/**
 * The instants of a filter's `from` and `to` as the admin gives them: a day (YYYY-MM-DD) is the
 * project's local day, `from` from its first moment and `to` through its last; an instant (a
 * parsed ISO date-time) is itself (`to` excluded).
 */
export function auditPeriod(db: Db, projectId: string, period: { from?: string | Date | undefined; to?: string | Date | undefined }): { from?: string; to?: string } {
  const timeZone = projectTimeZone(db, projectId);
  const instant = (value: string | Date | undefined, day: (value: string) => string) =>
    (value === undefined ? undefined : value instanceof Date ? value.toISOString() : day(value));
  const from = instant(period.from, (day) => dayStart(day, timeZone));
  const to = instant(period.to, (day) => dayStart(shiftDate(day, 1), timeZone));
  return { ...(from === undefined ? {} : { from }), ...(to === undefined ? {} : { to }) };
}

/** A project's entries, newest first, with the filters applied. */
export function listAudit(db: Db, projectId: string, filter: AuditFilter, page: { limit: number; offset: number }): { entries: AuditEntry[]; pagination: Page } {
  const params = {
    projectId,
    actor: filter.actor ?? null,
    action: filter.action === undefined ? null : `${escapeLike(filter.action)}%`,
    target: filter.target ?? null,
    from: filter.from ?? null,
    to: filter.to ?? null,
    limit: page.limit,
    offset: page.offset,
  };
  const total = stmt<number>(db, `SELECT count(*) ${FILTERED}`).pluck().get(params)!;
  const rows = stmt<AuditRow>(db, `SELECT id, at, actor_type, actor_id, actor_label, action, target, summary ${FILTERED}
    ORDER BY id DESC LIMIT @limit OFFSET @offset`).all(params);
  return { entries: rows.map(toEntry), pagination: pageOf(total, page, rows.length) };
}

/**
 * Deletes up to `limit` entries older than `before`, oldest first. Entries are appended in time
 * order, so the first entry at or after `before` bounds the old ones by row id, and neither query
 * reads past them.
 */
export function pruneAudit(db: Db, before: Date, limit: number): number {
  const cutoff = stmt<number>(db, 'SELECT id FROM audit_log WHERE at >= ? ORDER BY id LIMIT 1').pluck().get(before.toISOString());
  const bound = cutoff ?? (stmt<number>(db, 'SELECT max(id) FROM audit_log').pluck().get() ?? 0) + 1;
  return stmt(db, 'DELETE FROM audit_log WHERE id IN (SELECT id FROM audit_log WHERE id < ? ORDER BY id LIMIT ?)').run(bound, limit).changes;
}

/**
 * Rewrites the project's entries that name `target` or hold any of `needles` (as JSON writes
 * them): an erasure takes a member's data out of the log. Reads the project's entries once;
 * erasures are rare.
 */
export function rewriteAuditEntries(db: Db, projectId: string, find: { target: string; needles: string[] },
  rewrite: (entry: { target: string; summary: AuditSummary }) => { target: string; summary: AuditSummary }): void {
  const rows = stmt<{ id: number; target: string; summary: string }>(db, `SELECT id, target, summary FROM audit_log WHERE project_id = @projectId
    AND (target = @target OR EXISTS (SELECT 1 FROM json_each(@needles) n WHERE instr(summary, n.value) > 0 OR instr(target, n.value) > 0))`)
    .all({ projectId, target: find.target, needles: JSON.stringify(find.needles) });
  const update = stmt(db, 'UPDATE audit_log SET target = ?, summary = ? WHERE id = ?');
  for (const row of rows) {
    const changed = rewrite({ target: row.target, summary: JSON.parse(row.summary) as AuditSummary });
    update.run(changed.target, JSON.stringify(changed.summary), row.id);
  }
}

/** The tables whose public ids name their project: for a CLI command given an id and no --project. */
const OWNED_IDS: [prefix: string, sql: string][] = [
  ['prj_', 'SELECT id FROM projects WHERE id = ?'],
  ['key_', 'SELECT project_id FROM api_keys WHERE id = ?'],
  ['whk_', 'SELECT project_id FROM webhooks WHERE id = ?'],
  ['dlv_', 'SELECT project_id FROM webhook_deliveries WHERE public_id = ?'],
];

/** The project a public id (a project's, a key's, a webhook's, a delivery's) belongs to; null for anything else. */
export function projectOfId(db: Db, id: string): string | null {
  const owned = OWNED_IDS.find(([prefix]) => id.startsWith(prefix));
  return owned ? (stmt<string>(db, owned[1]).pluck().get(id) ?? null) : null;
}
