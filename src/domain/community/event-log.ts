import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { type Page, pageOf } from '../../shared/page.ts';

/** One delivery as the log shows it: what it was, what it paid or why not, and the error of a refused one. */
export interface CommunityLogEntry {
  eventId: string | null;
  eventType: string | null;
  communityUserId: string | null;
  /** The member credited (their externalId); null when the user is not linked or the delivery was refused. */
  externalId: string | null;
  status: number;
  outcome: string;
  pointsAwarded: number;
  multiplier: number;
  error: string | null;
  receivedAt: string;
}

interface LogRow {
  event_id: string | null;
  event_type: string | null;
  community_user_id: string | null;
  external_id: string | null;
  status: number;
  outcome: string;
  points: number;
  multiplier: number;
  error: string | null;
  created_at: number;
}

/** The project's recent deliveries, newest first (the log keeps COMMUNITY_LOG_RETENTION_MS of them). */
export function listCommunityEvents(db: Db, projectId: string, query: { limit: number; offset: number }): { events: CommunityLogEntry[]; pagination: Page } {
  const total = stmt<number>(db, 'SELECT count(*) FROM community_events WHERE project_id = ?').pluck().get(projectId)!;
  const rows = stmt<LogRow>(db, `SELECT e.event_id, e.event_type, e.community_user_id, m.external_id, e.status, e.outcome, e.points, e.multiplier,
    e.error, e.created_at FROM community_events e LEFT JOIN members m ON m.id = e.member_id WHERE e.project_id = ?
    ORDER BY e.id DESC LIMIT ? OFFSET ?`).all(projectId, query.limit, query.offset);
  return {
    events: rows.map((row) => ({
      eventId: row.event_id, eventType: row.event_type, communityUserId: row.community_user_id, externalId: row.external_id, status: row.status,
      outcome: row.outcome, pointsAwarded: row.points, multiplier: row.multiplier, error: row.error, receivedAt: new Date(row.created_at).toISOString(),
    })),
    pagination: pageOf(total, query, rows.length),
  };
}
