import { badRequest } from '../../../shared/errors.ts';

/** What an import reads of a member: the fields of `--map` and of POST /members/import's rows. */
export const IMPORT_FIELDS = ['externalId', 'email', 'name', 'balance', 'pending', 'level', 'joinedAt', 'birthday', 'pointsExpireAt', 'referralCode'] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];
/** Exports that split the name: joined into `name`. */
type ColumnField = ImportField | 'firstName' | 'lastName';

export type SourceName = 'smile' | 'loyaltylion' | 'woocommerce-points' | 'mycred' | 'csv';

/** Column names compare without regard to case, spaces, dashes or underscores: `Points Approved` is `points_approved`. */
export const columnKey = (name: string): string => name.toLowerCase().replace(/[\s_-]+/g, '');

/**
 * One programme a shop leaves, as its exports write members: the reader of its files. Every reader
 * feeds the one importer (importer.ts) with the same fields.
 */
export interface ImportSource {
  name: SourceName;
  /** How descriptions and summaries name it: "Opening balance from Smile". */
  label: string;
  /** The header names each field is read from (first match wins), as columnKey compares them. */
  columns: Partial<Record<ColumnField, readonly string[]>>;
  /** Columns read and knowingly left unused (LoyaltyLion's points_spent): not reported as ignored. */
  unused?: readonly string[];
  /** Fields a file needs a column for: each entry one field or its alternatives. */
  needs: readonly (readonly ImportField[])[];
  /** Whether a header (its columnKeys) is this programme's: how the format is guessed. */
  recognises(keys: ReadonlySet<string>): boolean;
  /** Columns it does not read: ignored (exports carry many), or refused (Punchcard's own files: a typo would lose data). */
  otherColumns: 'ignore' | 'refuse';
  /** WordPress exports name customers by user id, which is the externalId unless the store names members by email. */
  externalIdIsUserId?: true;
  /** Why a header this reader knows cannot be read as it is, with what to do instead; null when it can. */
  refuse?(keys: ReadonlySet<string>): string | null;
}

/** `--map externalId=Customer ID,balance=Points`: fields to the file's column names. */
export type ColumnMap = Partial<Record<ImportField, string>>;

export function parseColumnMap(text: string): ColumnMap {
  const map: ColumnMap = {};
  for (const pair of text.split(',').map((part) => part.trim()).filter((part) => part !== '')) {
    const at = pair.indexOf('=');
    const field = IMPORT_FIELDS.find((name) => columnKey(name) === columnKey(pair.slice(0, Math.max(at, 0))));
    if (at <= 0 || at === pair.length - 1 || !field) {
      throw badRequest(`--map takes field=Column pairs separated by commas (fields: ${IMPORT_FIELDS.join(', ')}); "${pair}" is not one`);
    }
    map[field] = pair.slice(at + 1).trim();
  }
  return map;
}

/** How one file's columns are read: the column index of each field, and what is left. */
export interface ColumnPlan {
  source: ImportSource;
  fields: Partial<Record<ColumnField, number>>;
  /** The header name each field is read from: the summary shows them. */
  read: Partial<Record<ColumnField, string>>;
  /** Columns nothing reads. */
  ignored: string[];
}

/**
 * The plan for a header: the programme's columns, with `map` over them. Throws (400, naming the
 * columns) for a header that cannot give a member: no column it knows, or one it needs missing,
 * or (Punchcard's own format) a column it does not know.
 */
export function planColumns(header: readonly string[], source: ImportSource, map: ColumnMap, options: { byEmail: boolean }): ColumnPlan {
  const keys = header.map(columnKey);
  const refusal = source.refuse?.(new Set(keys));
  if (refusal) throw badRequest(refusal);
  const plan: ColumnPlan = { source, fields: {}, read: {}, ignored: [] };
  const take = (field: ColumnField, names: readonly string[]) => {
    for (const name of names) {
      const index = keys.indexOf(columnKey(name));
      if (index !== -1) {
        plan.fields[field] = index;
        plan.read[field] = header[index]!;
        return true;
      }
    }
    return false;
  };
  for (const [field, names] of Object.entries(source.columns) as [ColumnField, readonly string[]][]) {
    if (field === 'externalId' && source.externalIdIsUserId && options.byEmail) continue;
    take(field, names);
  }
  for (const [field, column] of Object.entries(map) as [ImportField, string][]) {
    if (!take(field, [column])) throw badRequest(`--map ${field}=${column}: the file has no column "${column}" (its columns: ${header.join(', ')})`);
  }
  const used = new Set([...Object.values(plan.fields), ...keys.flatMap((key, i) => (source.unused?.some((name) => columnKey(name) === key) ? [i] : []))]);
  plan.ignored = header.filter((_, i) => !used.has(i));
  const mapped = Object.keys(map).length > 0;
  if (Object.keys(plan.fields).length === 0) {
    throw badRequest(`no column of this file is one ${source.label} writes (${header.join(', ') || 'an empty header'}); ${describeColumns(source)}, or name them with --map field=Column`);
  }
  if (source.otherColumns === 'refuse' && !mapped && plan.ignored.length > 0) {
    throw badRequest(`unknown column(s) ${plan.ignored.map((c) => `"${c}"`).join(', ')}; ${describeColumns(source)} (or read other files with --from or --map)`);
  }
  for (const alternatives of source.needs) {
    if (!alternatives.some((field) => plan.fields[field] !== undefined)) {
      throw badRequest(`the file has no ${alternatives.join(' or ')} column; ${describeColumns(source)}, or name it with --map ${alternatives[0]}=Column`);
    }
  }
  return plan;
}

/** "Smile's columns are email, points" */
const describeColumns = (source: ImportSource): string =>
  `${source.label}'s columns are ${Object.values(source.columns).map((names) => names[0]).join(', ')}`;

/** The fields a record gives (empty cells are not given, as a key missing from a JSON line). */
export function rowFrom(plan: ColumnPlan, record: readonly string[]): Record<string, string> {
  const row: Record<string, string> = {};
  for (const [field, index] of Object.entries(plan.fields) as [ColumnField, number][]) {
    const value = record[index];
    if (value !== undefined && value !== '' && field !== 'firstName' && field !== 'lastName') row[field] = value;
  }
  if (row.name === undefined && (plan.fields.firstName !== undefined || plan.fields.lastName !== undefined)) {
    const name = [plan.fields.firstName, plan.fields.lastName].map((i) => (i === undefined ? '' : record[i] ?? '')).join(' ').trim();
    if (name !== '') row.name = name;
  }
  return row;
}
