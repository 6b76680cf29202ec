import * as v from 'valibot';
import { MAX_POSTING, text, timestamp } from '../../shared/value-schemas.ts';

// The value rules the catalog kinds' item schemas are written with.

export const int = (min: number, max = MAX_POSTING) => v.pipe(
  v.number('must be a number'),
  v.integer('must be a whole number'),
  v.minValue(min, `must be at least ${min}`),
  v.maxValue(max, `must be at most ${max}`),
);
export const enumOf = <const T extends string>(values: readonly T[]) => v.picklist(values, `must be one of ${values.join(', ')}`);
export const flag = v.boolean('must be true or false');
export const label = v.pipe(text(200), v.minLength(1, 'must not be empty'));
export const slug = (max: number) => v.pipe(v.string('must be a string'), v.regex(new RegExp(`^[A-Za-z0-9][A-Za-z0-9._:-]{0,${max - 1}}$`),
  `must be 1 to ${max} letters, digits, ".", "_", ":" or "-", starting with a letter or digit`));
export const minutes = int(0, 525_600);
/** A point in time, kept as the ISO 8601 UTC text it is stored and shown as, so windows compare as text. */
export const isoTime = v.pipe(timestamp, v.transform((date) => date.toISOString()));

/** The stable key `punchcard seed --file` matches items by. */
export const itemKey = slug(100);
