import * as v from 'valibot';
import { isPlainObject } from '../../domain/objects.ts';

// Messages name the rule, not the field: the error formatter puts the field's path in front.

export const text = (max: number) => v.pipe(v.string('must be a string'), v.maxLength(max, `must be at most ${max} characters`));

export const noControlChars = (value: string) => !/[\u0000-\u001f\u007f]/.test(value);

export const externalId = v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.maxLength(255, 'must be at most 255 characters'),
  v.check(noControlChars, 'must not contain control characters'),
);

export const email = v.pipe(text(254), v.email('must be a valid email address'));

export const httpUrl = v.pipe(
  text(2048),
  v.url('must be a valid URL'),
  v.check((url) => /^https?:\/\//i.test(url), 'must be an http or https URL'),
);

// Runs even when isoDate has already failed (valibot keeps validating), so it must not throw on junk.
const isRealDate = (date: string) => {
  const parsed = new Date(`${date}T00:00:00Z`);
  return !Number.isNaN(parsed.getTime()) && parsed.toISOString().startsWith(date);
};
export const calendarDate = v.pipe(v.string('must be a string'), v.isoDate('must be a date written YYYY-MM-DD'), v.check(isRealDate, 'is not a real calendar date'));

export { isPlainObject };

export const metadata = v.pipe(
  v.custom<Record<string, unknown>>(isPlainObject, 'must be a JSON object'),
  v.check((value) => JSON.stringify(value).length <= 16_384, 'must be at most 16 KB as JSON'),
);

export const timestamp = v.pipe(
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

/** For routes that take no body: `{}` or nothing at all. */
export const emptyBody = v.strictObject({});

/** A whole number given as query text. */
export const queryInt = (min: number, max: number) => v.pipe(
  v.string(),
  v.regex(/^-?\d{1,15}$/, 'must be a whole number'),
  v.transform(Number),
  v.minValue(min, `must be at least ${min}`),
  v.maxValue(max, `must be at most ${max}`),
);

export const queryBool = v.pipe(
  v.picklist(['true', 'false', '1', '0'], 'must be true or false'),
  v.transform((value) => value === 'true' || value === '1'),
);
