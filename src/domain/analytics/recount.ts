import type { Db } from '../../db/connection.ts';
import { stmt } from '../../db/statements.ts';
import { atomically, readSnapshot } from '../../db/transaction.ts';
import { FIGURE_TABLES, writeTallies } from './figures.ts';

/**
 * The daily figures against the ledger. migrations/0034 defines, as views, each figure recounted
 * from the ledger (and from the claims, quest completions and orders it comes with); the tables
 * must hold exactly that. `punchcard doctor` reports where they part, and `doctor
 * --rebuild-figures` (and a change of a project's time zone) replaces them with the recount.
 */

/** Each figure table and the view that recounts it. */
const RECOUNTS = new Map([['daily_figures', 'daily_figures_recount'], ['daily_order_figures', 'daily_order_figures_recount']]);

export interface FiguresProblem {
  projectId: string;
  /** The table and the row's key (day, and kind and item or segment), e.g. `daily_figures 2026-11-20 day`. */
  row: string;
  /** The row as the figures hold it and as the ledger recounts it (column: value); null where there is no such row. */
  figures: Record<string, number> | null;
  ledger: Record<string, number> | null;
}

export interface FiguresCheck {
  problems: FiguresProblem[];
  /** Members whose latest day of activity differs from their ledger's. */
  memberDays: number;
}

/** A row with every figure 0 says nothing (an order that stopped counting leaves one): the recount has none. */
const nonZero = (columns: readonly string[]) => columns.map((c) => `${c} <> 0`).join(' OR ');

const scope = (projectId: string | undefined) => (projectId === undefined ? '1' : 'project_id = @projectId');

/**
 * Compares every figure with its recount from the ledger: an empty list of problems means they
 * are in step. A read (one snapshot): `punchcard doctor` runs it beside a server without holding
 * up its writes. Inside a write, what the write tallied so far is written first.
 */
export function checkFigures(db: Db, projectId?: string, limit = 100): FiguresCheck {
  if (db.inTransaction) writeTallies(db);
  return readSnapshot(db, () => {
    const problems: FiguresProblem[] = [];
    for (const target of FIGURE_TABLES) {
      // One pass of the recount (a full join), not two (EXCEPT each way): it reads the whole ledger.
      const same = target.keys.map((key) => `h.${key} = r.${key}`).join(' AND ');
      const differs = target.columns.map((c) => `h.${c} IS NOT r.${c}`).join(' OR ');
      const side = (alias: string) => target.columns.map((c) => `${alias}.${c} AS ${alias}_${c}`).join(', ');
      const rows = db.prepare<{ projectId: string | undefined }, Record<string, string | number | null>>(`SELECT
          ${target.keys.map((key) => `coalesce(h.${key}, r.${key}) AS ${key}`).join(', ')}, h.project_id IS NOT NULL AS held, r.project_id IS NOT NULL AS recounted,
          ${side('h')}, ${side('r')}
        FROM (SELECT * FROM ${target.name} WHERE ${scope(projectId)} AND (${nonZero(target.columns)})) h
        FULL JOIN (SELECT * FROM ${RECOUNTS.get(target.name)} WHERE ${scope(projectId)}) r ON ${same}
        WHERE h.project_id IS NULL OR r.project_id IS NULL OR ${differs}`).all({ projectId });
      const values = (row: Record<string, string | number | null>, alias: string) =>
        Object.fromEntries(target.columns.map((column) => [column, Number(row[`${alias}_${column}`])]));
      for (const row of rows) {
        problems.push({
          projectId: String(row.project_id), row: [target.name, ...target.keys.slice(1).map((key) => row[key])].filter(Boolean).join(' '),
          figures: row.held ? values(row, 'h') : null, ledger: row.recounted ? values(row, 'r') : null,
        });
      }
    }
    const memberDays = db.prepare<{ projectId: string | undefined }, number>(`SELECT count(*) FROM members m
      LEFT JOIN (SELECT member_id, day FROM member_active_days WHERE ${scope(projectId)}) a ON a.member_id = m.id
      WHERE ${scope(projectId).replace('project_id', 'm.project_id')} AND m.active_day IS NOT a.day`).pluck().get({ projectId })!;
    return { problems: problems.slice(0, limit), memberDays };
  });
}

export interface Rebuilt {
  /** Rows written to daily_figures and daily_order_figures. */
  rows: number;
  ms: number;
}

/**
 * Replaces the figures (of one project, or all) with their recount from the ledger, in one
 * transaction, and each member's latest day of activity with their ledger's.
 */
export function rebuildFigures(db: Db, projectId?: string): Rebuilt {
  const started = performance.now();
  return atomically(db, () => {
    writeTallies(db);
    let rows = 0;
    for (const [table, recount] of RECOUNTS) {
      stmt(db, `DELETE FROM ${table} WHERE ${scope(projectId)}`).run({ projectId });
      rows += stmt(db, `INSERT INTO ${table} SELECT * FROM ${recount} WHERE ${scope(projectId)}`).run({ projectId }).changes;
    }
    stmt(db, `UPDATE members SET active_day = NULL WHERE ${scope(projectId)} AND active_day IS NOT NULL`).run({ projectId });
    stmt(db, `UPDATE members SET active_day = a.day FROM (SELECT member_id, day FROM member_active_days WHERE ${scope(projectId)}) a
      WHERE a.member_id = members.id`).run({ projectId });
    return { rows, ms: Math.round(performance.now() - started) };
  });
}
