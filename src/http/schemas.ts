import * as v from 'valibot';
import { MAX_POSTING } from '../domain/ledger.ts';

// Messages name the rule, not the field: the error formatter puts the field's path in front.

const text = (max: number) => v.pipe(v.string('must be a string'), v.maxLength(max, `must be at most ${max} characters`));

const noControlChars = (value: string) => !/[\u0000-\u001f\u007f]/.test(value);

export const externalId = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(255, 'must be at most 255 characters'),
  v.check(noControlChars, 'must not contain control characters'),
);

const email = v.pipe(text(254), v.email('must be a valid email address'));

const httpUrl = v.pipe(
  text(2048),
  v.url('must be a valid URL'),
  v.check((url) => /^https?:\/\//i.test(url), 'must be an http or https URL'),
);

// Runs even when isoDate has already failed (valibot keeps validating), so it must not throw on junk.
const isRealDate = (date: string) => {
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(date);
};
const calendarDate = v.pipe(v.string('must be a string'), v.isoDate('must be a date written YYYY-MM-DD'), v.check(isRealDate, 'is not a real calendar date'));

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const metadata = v.pipe(
  v.custom<Record<string, unknown>>(isPlainObject, 'must be a JSON object'),
  v.check((value) => JSON.stringify(value).length <= 16_384, 'must be at most 16 KB as JSON'),
);

const timestamp = v.pipe(
  v.string('must be a string'),
  v.isoTimestamp('must be an ISO 8601 date-time such as 2026-12-31T23:59:59Z'),
  v.check((value) => isRealDate(value.slice(0, 10)), 'is not a real calendar date'),
  v.transform((value) => new Date(value)),
  v.check((date) => !Number.isNaN(date.getTime()), 'is not a real date-time'),
);

export const idempotencyKey = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(255, 'must be at most 255 characters'),
  v.check(noControlChars, 'must not contain control characters'),
);

const profile = {
  email: v.optional(v.nullable(email)),
  name: v.optional(v.nullable(text(200))),
  avatarUrl: v.optional(v.nullable(httpUrl)),
  phone: v.optional(v.nullable(text(32))),
  dateOfBirth: v.optional(v.nullable(calendarDate)),
  metadata: v.optional(metadata),
};

/** For routes that take no body: `{}` or nothing at all. */
export const emptyBody = v.strictObject({});

export const memberCreateBody = v.strictObject({ externalId, ...profile });
export const memberUpdateBody = v.strictObject(profile);

export const pointsBody = v.strictObject({
  amount: v.pipe(
    v.number('must be a number'),
    v.integer('must be a whole number of points'),
    v.check((n) => n !== 0, 'must not be zero: positive awards, negative deducts'),
    v.minValue(-MAX_POSTING, `must be at least -${MAX_POSTING}`),
    v.maxValue(MAX_POSTING, `must be at most ${MAX_POSTING}`),
  ),
  description: v.optional(text(500)),
  referenceId: v.optional(text(255)),
  metadata: v.optional(metadata),
  expiresAt: v.optional(timestamp),
  idempotencyKey: v.optional(idempotencyKey),
});

/** A whole number given as query text. */
const queryInt = (min: number, max: number) => v.pipe(
  v.string(),
  v.regex(/^-?\d{1,15}$/, 'must be a whole number'),
  v.transform(Number),
  v.minValue(min, `must be at least ${min}`),
  v.maxValue(max, `must be at most ${max}`),
);

const queryBool = v.pipe(
  v.picklist(['true', 'false', '1', '0'], 'must be true or false'),
  v.transform((value) => value === 'true' || value === '1'),
);

export const memberListQuery = v.strictObject({
  search: v.optional(text(200)),
  limit: v.optional(queryInt(1, 100), '50'),
  offset: v.optional(queryInt(0, Number.MAX_SAFE_INTEGER), '0'),
});

export const memberLookupQuery = v.pipe(
  v.strictObject({ email: v.optional(text(254)), externalId: v.optional(externalId) }),
  v.check((q) => (q.email === undefined) !== (q.externalId === undefined), 'must give exactly one of email or externalId'),
);

export const pointsQuery = v.strictObject({
  history: v.optional(queryBool, 'false'),
  limit: v.optional(queryInt(1, 100), '20'),
});
