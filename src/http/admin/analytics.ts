import { overview } from '../../domain/analytics/overview.ts';
import { POINTS_REPORT_COLUMNS, pointsReport } from '../../domain/analytics/points-report.ts';
import { overviewQuery, pointsReportQuery } from '../../schemas/analytics.ts';
import { overviewAnswer, pointsReportAnswer } from '../../schemas/answers/analytics.ts';
import type { ProjectApi } from './api.ts';
import { csvResponse } from './lists.ts';

/** The Overview and the points-accounting table: read from the daily figures (docs/admin.md#what-the-overview-counts), never the ledger. */
export function analyticsRoutes({ route, ctx }: ProjectApi): void {
  route('GET', '/overview', { query: overviewQuery, responses: { 200: overviewAnswer } }, ({ projectId, query, now }) =>
    overview(ctx.db, projectId, query.range, now));

  route('GET', '/points-report', { query: pointsReportQuery, csv: true, responses: { 200: pointsReportAnswer } }, ({ projectId, query }) => {
    const report = pointsReport(ctx.db, projectId, query.from, query.to);
    return query.format === 'csv' ? csvResponse('points-report', [...POINTS_REPORT_COLUMNS], report.days) : report;
  });
}
