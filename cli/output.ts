import { openSync } from 'node:fs';
import { terminalJson, terminalText } from '../src/shared/terminal-text.ts';

/** Prints rows as an aligned plain-text table (or a note when there are none); control characters in a cell are escaped. */
export function printTable(rows: Record<string, unknown>[], columns: string[]): void {
  if (rows.length === 0) {
    console.log('(none)');
    return;
  }
  const cell = (value: unknown) => (value === null || value === undefined ? '-' : terminalText(String(value)));
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join('  ').trimEnd();
  console.log(line(columns));
  for (const row of rows) console.log(line(columns.map((column) => cell(row[column]))));
}

/**
 * Opens a new file only this user can read (mode 0600), for output that holds personal data; an
 * existing file is never overwritten. Returns its descriptor.
 */
export function openNewPrivateFile(path: string): number {
  try {
    return openSync(path, 'wx', 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    throw new Error(`${path} already exists; choose a new file (one is never overwritten)`);
  }
}

/** JSON for scripts, and for a terminal: JSON escapes C0 control characters itself, and DEL, C1 and bidi controls are escaped too. */
export const printJson = (value: unknown) => console.log(terminalJson(JSON.stringify(value, null, 2)));

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

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function summaryValue(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.map(summaryValue).join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return terminalText(String(value));
}

/** `{a: {b: 1}}` as `[['a.b', '1']]`; a map of switches as one line: "on: x, y; off: z". */
function summaryRows(object: Record<string, unknown>, prefix = ''): [string, string][] {
  return Object.entries(object).flatMap(([key, value]): [string, string][] => {
    const name = `${prefix}${key}`;
    if (!isObject(value)) return [[name, summaryValue(value)]];
    const switches = Object.entries(value);
    if (switches.length > 0 && switches.every(([, on]) => typeof on === 'boolean')) {
      const list = (on: boolean) => switches.filter(([, v]) => v === on).map(([k]) => terminalText(k)).join(', ') || '(none)';
      return [[name, `on: ${list(true)}; off: ${list(false)}`]];
    }
    return summaryRows(value, `${name}.`);
  });
}

/** Prints a settings object for people: top-level values first, then one section per nested object. */
export function printSummary(object: Record<string, unknown>): void {
  const scalars = Object.fromEntries(Object.entries(object).filter(([, value]) => !isObject(value)));
  const sections: [string, [string, string][]][] = [['', summaryRows(scalars)],
    ...Object.entries(object).filter(([, value]) => isObject(value)).map(([key, value]): [string, [string, string][]] => [key, summaryRows(value as Record<string, unknown>)])];
  const width = Math.max(...sections.flatMap(([, rows]) => rows.map(([name]) => name.length)));
  for (const [title, rows] of sections) {
    if (title) console.log(`\n${terminalText(title)}`);
    for (const [name, value] of rows) console.log(`  ${terminalText(name).padEnd(width)}  ${value}`);
  }
}
