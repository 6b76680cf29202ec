import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';

/** Ledger rows by type, for /metrics: read when scraped (a scan of the table), never on a request's path. */
export function transactionCountsByType(db: Db): { type: string; n: number }[] {
  return stmt<{ type: string; n: number }>(db, 'SELECT type, count(*) AS n FROM transactions GROUP BY type').all();
}
