import type { Db } from '../../../db/connection.ts';
import { atomically } from '../../../db/transaction.ts';
import { AppError } from '../../../shared/errors.ts';
import { countRow, describeRowIdentity, type ImportCounts, importRow, type ImportRow, noImportCounts, rowIdentity, type RowReport } from './importer.ts';
import type { SourceName } from './columns.ts';
import { sourceNamed } from './sources.ts';

/** POST /members/import, validated (src/schemas/member-import.ts). */
export interface ImportBatch {
  batchId: string;
  mode: 'add' | 'reset';
  source: SourceName | 'api';
  importKey?: string | undefined;
  pendingAsAvailable: boolean;
  pendingDays: number;
  rows: ImportRow[];
}

/** A row's report: what it did, or why it was skipped (`outcome: "error"`, the other rows imported). */
export type BatchRowReport = { index: number } & (RowReport | { outcome: 'error'; error: string; externalId: string | null });

export interface BatchReport {
  batchId: string;
  importKey: string;
  mode: 'add' | 'reset';
  rows: BatchRowReport[];
  summary: ImportCounts;
}

/**
 * A batch of up to 1,000 members through the one importer, in one transaction, each row a
 * savepoint: a row that fails is reported and the others imported, as a file's lines are. Rows are
 * imported once per import key (the batchId unless the caller names one for a whole migration), so
 * re-sending a batch, or sending it again after a failure, adds nothing twice.
 */
export function importBatch(db: Db, projectId: string, batch: ImportBatch, actor: string, now: Date): BatchReport {
  return atomically(db, () => {
    const importKey = batch.importKey ?? batch.batchId;
    const label = batch.source === 'api' ? 'the API' : sourceNamed(batch.source).label;
    const settings = {
      projectId, mode: batch.mode, importKey, label, origin: `batch ${batch.batchId}`, actor,
      pending: batch.pendingAsAvailable ? { as: 'available' as const } : { as: 'pending' as const, days: batch.pendingDays },
    };
    const summary = noImportCounts();
    const seen = new Map<string, number>();
    const rows = batch.rows.map((row, index): BatchRowReport => {
      const identity = rowIdentity(row);
      const first = seen.get(identity);
      const fail = (error: string): BatchRowReport => {
        summary.skipped++;
        return { index, outcome: 'error', error, externalId: row.externalId ?? null };
      };
      if (first !== undefined) return fail(`${describeRowIdentity(row)} is already row ${first}`);
      seen.set(identity, index);
      try {
        const report = importRow(db, settings, row, `row ${index}`, now);
        countRow(summary, report);
        return { index, ...report };
      } catch (error) {
        if (error instanceof AppError && error.status < 500) return fail(error.message);
        throw error;
      }
    });
    return { batchId: batch.batchId, importKey, mode: batch.mode, rows, summary };
  });
}
