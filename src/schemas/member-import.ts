import * as v from 'valibot';
import { MAX_POSTING } from '../shared/value-schemas.ts';
import { email, externalId, text, timestamp } from './common.ts';

/** A whole number written as a number (JSON lines) or as digits (CSV). */
const wholeNumber = (min: number, max: number) => v.pipe(
  v.union([v.number(), v.pipe(v.string(), v.regex(/^-?\d{1,15}$/, 'must be a whole number'), v.transform(Number))], 'must be a whole number'),
  v.integer('must be a whole number'),
  v.minValue(min, `must be at least ${min}`),
  v.maxValue(max, `must be at most ${max}`),
);

/**
 * One member of an import file (a CSV row or a JSON line). `balance` becomes the opening-balance
 * ledger entry; `level` is a level number or name, checked against what the balance gives;
 * `totalPointsEarned` and `levelName` are what `members export` writes, read and ignored so an
 * export imports as it is.
 */
export const memberImportLine = v.strictObject({
  externalId,
  email: v.optional(email),
  name: v.optional(text(200)),
  balance: v.optional(wholeNumber(0, MAX_POSTING), 0),
  level: v.optional(v.union([v.number(), text(200)])),
  joinedAt: v.optional(timestamp),
  pointsExpireAt: v.optional(timestamp),
  totalPointsEarned: v.optional(v.unknown()),
  levelName: v.optional(v.unknown()),
});

export type MemberImportLine = v.InferOutput<typeof memberImportLine>;

/** The columns an import file may have, in the order `members export` writes them. */
export const IMPORT_COLUMNS = ['externalId', 'email', 'name', 'balance', 'totalPointsEarned', 'level', 'levelName', 'joinedAt', 'pointsExpireAt'] as const;
