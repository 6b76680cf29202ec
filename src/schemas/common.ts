import * as v from 'valibot';
import { isPlainObject } from '../shared/objects.ts';
import { identifier } from '../shared/value-schemas.ts';

// The value rules live in src/shared so the catalog's item schemas (domain) use the same ones.
export { calendarDate, email, httpUrl, identifier, text, timestamp } from '../shared/value-schemas.ts';

export const externalId = identifier(255);

export { isPlainObject };

export const metadata = v.pipe(
  v.custom<Record<string, unknown>>(isPlainObject, 'must be a JSON object'),
  v.check((value) => JSON.stringify(value).length <= 16_384, 'must be at most 16 KB as JSON'),
);

export const idempotencyKey = identifier(255);

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
