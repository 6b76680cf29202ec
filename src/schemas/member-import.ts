import * as v from 'valibot';
import { MAX_PENDING_DAYS } from '../domain/members/import/importer.ts';
import { SOURCE_NAMES } from '../domain/members/import/sources.ts';
import { MAX_POSTING } from '../shared/value-schemas.ts';
import { calendarDate, email, externalId, identifier, text } from './common.ts';

/**
 * Points as a file writes them: a number (JSON) or digits (CSV). `120.0` is 120 (spreadsheets and
 * myCred's decimal setting write that); `1,200`, `12.5` and negatives are refused, never guessed at.
 */
const filePoints = v.pipe(
  v.union([v.number(), v.string()], 'must be a whole number of points'),
  v.check((value) => typeof value === 'number' || /^-?\d{1,15}(?:\.0+)?$/.test(value), 'must be a whole number of points (write 1200, not 1,200 or 12.5)'),
  v.transform(Number),
  v.integer('must be a whole number of points'),
  v.minValue(0, 'must be at least 0'),
  v.maxValue(MAX_POSTING, `must be at most ${MAX_POSTING}`),
);

/** Points in a request: JSON numbers only. */
const requestPoints = v.pipe(
  v.number('must be a whole number of points'),
  v.integer('must be a whole number of points'),
  v.minValue(0, 'must be at least 0'),
  v.maxValue(MAX_POSTING, `must be at most ${MAX_POSTING}`),
);

/** A date (2024-05-01: midnight in the project's time zone) or a date-time, with or without its zone (without: the project's). */
const importDate = v.pipe(
  v.string('must be a date or date-time text'),
  v.regex(/^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i,
    'must be a date (2024-05-01) or an ISO 8601 date-time (2024-05-01T10:00:00Z)'),
);

/** A level number, or a level's (tier's) name. */
const level = v.union([v.pipe(v.number(), v.integer('must be a level number or name'), v.minValue(0, 'must be at least 0')), text(200)],
  'must be a level number or name');

/**
 * The fields of one member to import, whatever the file or request they came from (a CSV row read
 * through its programme's columns, a JSON line, a row of POST /members/import): the importer's
 * ImportRow (src/domain/members/import/importer.ts), which reads the dates in the project's time zone.
 */
const rowFields = <P extends typeof filePoints | typeof requestPoints>(points: P) => ({
  externalId: v.optional(externalId),
  email: v.optional(email),
  name: v.optional(text(200)),
  balance: v.optional(points, 0),
  pending: v.optional(points, 0),
  level: v.optional(level),
  joinedAt: v.optional(importDate),
  birthday: v.optional(calendarDate),
  pointsExpireAt: v.optional(importDate),
  referralCode: v.optional(v.pipe(identifier(32), v.regex(/^[A-Za-z0-9_-]{3,32}$/, 'must be 3 to 32 letters, digits, - or _'))),
});

const needsIdentity = <T extends { externalId?: string | undefined; email?: string | undefined }>() =>
  v.check<T, string>((row) => row.externalId !== undefined || row.email !== undefined, 'needs an externalId or an email to name the member by');

/** One member of a file. */
const fileRow = v.strictObject(rowFields(filePoints));
export const importRow = v.pipe(fileRow, needsIdentity<v.InferOutput<typeof fileRow>>());

/** One member of a request. */
const requestRowObject = v.strictObject(rowFields(requestPoints));
const requestRow = v.pipe(requestRowObject, needsIdentity<v.InferOutput<typeof requestRowObject>>());

/**
 * A JSON line of `members import`: the fields above, plus what `members export` writes beside them
 * (`totalPointsEarned`, `levelName`), read and ignored so an export imports as it is.
 */
const exportedLine = v.strictObject({ ...rowFields(filePoints), totalPointsEarned: v.optional(v.unknown()), levelName: v.optional(v.unknown()) });
export const importJsonLine = v.pipe(
  exportedLine,
  needsIdentity<v.InferOutput<typeof exportedLine>>(),
  v.transform(({ totalPointsEarned: _total, levelName: _name, ...row }) => row),
);

/** Rows per POST /members/import: what one transaction of an import holds. */
export const MAX_IMPORT_ROWS = 1_000;
/** Its body: 1,000 rows of long names and addresses fit (the other routes take 64 KiB). */
export const IMPORT_BODY_BYTES = 1024 * 1024;

/** The programmes `members import` reads (a batch's rows name which), or the API itself. */
const BATCH_SOURCES = [...SOURCE_NAMES, 'api'] as const;

/** POST /members/import. */
export const memberImportBody = v.strictObject({
  batchId: identifier(255),
  mode: v.optional(v.picklist(['add', 'reset'], 'must be "add" or "reset"'), 'add'),
  /** Which programme the rows come from: named in each entry's description. */
  source: v.optional(v.picklist(BATCH_SOURCES, `must be one of ${BATCH_SOURCES.join(', ')}`), 'api'),
  /** Rows are imported once per importKey (default: the batchId); send one key with every batch of one migration. */
  importKey: v.optional(identifier(255)),
  pendingAsAvailable: v.optional(v.boolean('must be true or false'), false),
  pendingDays: v.optional(v.pipe(v.number(), v.integer('must be a whole number of days'), v.minValue(0, 'must be at least 0'), v.maxValue(MAX_PENDING_DAYS, `must be at most ${MAX_PENDING_DAYS}`)), 30),
  rows: v.pipe(
    v.array(requestRow, 'must be an array of members'),
    v.minLength(1, 'must hold at least one member'),
    v.maxLength(MAX_IMPORT_ROWS, `must hold at most ${MAX_IMPORT_ROWS} members per request`),
  ),
});
export type MemberImportBody = v.InferOutput<typeof memberImportBody>;
