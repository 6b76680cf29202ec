import type { Db } from '../../../db/connection.ts';
import { stmt } from '../../../db/statements.ts';
import type { SourceName } from './columns.ts';

/** An earlier run of `members import` that this one carries on. */
export interface EarlierRun {
  importKey: string;
  fileName: string;
  startedAt: string;
  /** Why this run carries it on: the same file again, or a corrected copy of one that skipped lines or was stopped. */
  relation: 'same file' | 'corrected copy';
  skipped: number;
  finished: boolean;
}

interface RunRow { import_key: string; fingerprint: string; file_name: string; started_at: string; skipped: number; finished_at: string | null }

/**
 * Which import a file continues. The same bytes as an earlier run: that import (a re-run, or a run
 * stopped half-way finishing). A file of the same name and programme whose latest run skipped
 * lines or was stopped: a corrected copy, so its lines already imported stay as they are and the
 * corrected ones are added. Anything else starts a new import (undefined), keyed by its fingerprint.
 */
export function earlierRun(db: Db, projectId: string, file: { fingerprint: string; fileName: string; source: SourceName }): EarlierRun | undefined {
  const same = stmt<RunRow>(db, `SELECT import_key, fingerprint, file_name, started_at, skipped, finished_at FROM member_imports
    WHERE project_id = ? AND fingerprint = ? ORDER BY id DESC LIMIT 1`).get(projectId, file.fingerprint);
  const toRun = (row: RunRow, relation: EarlierRun['relation']): EarlierRun => ({ importKey: row.import_key, fileName: row.file_name,
    startedAt: row.started_at, relation, skipped: row.skipped, finished: row.finished_at !== null });
  if (same) return toRun(same, 'same file');
  const latest = stmt<RunRow>(db, `SELECT import_key, fingerprint, file_name, started_at, skipped, finished_at FROM member_imports
    WHERE project_id = ? AND file_name = ? AND source = ? ORDER BY id DESC LIMIT 1`).get(projectId, file.fileName, file.source);
  return latest && (latest.skipped > 0 || latest.finished_at === null) ? toRun(latest, 'corrected copy') : undefined;
}

/** Records a run as it starts; `finishRun` completes it. Returns its id. */
export function startRun(db: Db, projectId: string, run: { importKey: string; fingerprint: string; source: SourceName; fileName: string; mode: string }, now: Date): number {
  return Number(stmt(db, `INSERT INTO member_imports (project_id, import_key, fingerprint, source, file_name, mode, started_at)
    VALUES (?, ?, ?, ?, ?, ?, ?)`).run(projectId, run.importKey, run.fingerprint, run.source, run.fileName, run.mode, now.toISOString()).lastInsertRowid);
}

export function finishRun(db: Db, runId: number, counts: { rows: number; skipped: number }, now: Date): void {
  stmt(db, 'UPDATE member_imports SET rows = ?, skipped = ?, finished_at = ? WHERE id = ?').run(counts.rows, counts.skipped, now.toISOString(), runId);
}
