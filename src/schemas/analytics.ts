import * as v from 'valibot';
import { OVERVIEW_RANGES, type OverviewRange } from '../domain/analytics/overview.ts';

// The admin's analytics queries: GET …/overview?range= and GET …/points-report?from=&to= (+ format=csv).

const date = (name: string) => v.pipe(v.string(`"${name}" must be a date such as 2026-11-30`), v.isoDate(`"${name}" must be a date such as 2026-11-30 (YYYY-MM-DD)`));

export const overviewQuery = v.strictObject({
  range: v.optional(v.pipe(v.picklist(OVERVIEW_RANGES.map(String), `"range" must be one of ${OVERVIEW_RANGES.join(', ')} (days)`), v.transform((range) => Number(range) as OverviewRange)), '30'),
});

export const pointsReportQuery = v.strictObject({
  from: date('from'),
  to: date('to'),
  format: v.optional(v.picklist(['json', 'csv'], '"format" must be json or csv'), 'json'),
});
