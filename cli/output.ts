/** Prints rows as an aligned plain-text table (or a note when there are none). */
export function printTable(rows: Record<string, unknown>[], columns: string[]): void {
  if (rows.length === 0) {
    console.log('(none)');
    return;
  }
  const cell = (value: unknown) => (value === null || value === undefined ? '-' : String(value));
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join('  ').trimEnd();
  console.log(line(columns));
  for (const row of rows) console.log(line(columns.map((column) => cell(row[column]))));
}

export const printJson = (value: unknown) => console.log(JSON.stringify(value, null, 2));

const UNITS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** Parses durations such as 500ms, 90s, 15m, 12h, 30d, 2w. */
export function parseDuration(text: string): number {
  const match = /^(\d+)(ms|[smhdw])$/.exec(text.trim());
  if (!match || Number(match[1]) === 0) throw new Error(`"${text}" is not a duration; use a number and a unit, e.g. 90s, 15m, 12h, 30d or 2w`);
  return Number(match[1]) * UNITS[match[2]!]!;
}

export function parsePositiveInt(text: string, what: string): number {
  if (!/^\d+$/.test(text) || Number(text) <= 0 || !Number.isSafeInteger(Number(text))) throw new Error(`${what} must be a positive whole number (got "${text}")`);
  return Number(text);
}
