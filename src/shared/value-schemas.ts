import * as v from 'valibot';

// Rules for single values, shared by the request schemas (src/schemas) and the catalog item
// schemas of the domain. Messages name the rule, not the field: the error formatter puts the
// field's path in front.

/** Awards above this are refused: a typo should not mint a fortune, and sums stay exact in JS. */
export const MAX_POSTING = 1_000_000_000;

/** Characters, as a person counts them: code points, not UTF-16 units or bytes. */
const characterCount = (value: string) => {
  let count = 0;
  for (const _ of value) count++;
  return count;
};

/** C0 and C1 control characters and DEL. */
const noControlChars = (value: string) => !/\p{Cc}/u.test(value);
/** Multi-line texts may keep line breaks and tabs; every other control character is refused. */
const noControlCharsButLines = (value: string) => !/[^\P{Cc}\t\n\r]/u.test(value);
/** Explicit embeddings, overrides and isolates reorder what a reader sees (Trojan Source). */
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/;
// With the u flag a lone surrogate is a code point of category Cs; a proper pair is not.
const wellFormed = (value: string) => !/\p{Cs}/u.test(value);

/** Text people read: well-formed, no bidi controls, NFC, at most `max` characters. */
const readable = (max: number, controls: (value: string) => boolean) => v.pipe(
  v.string('must be a string'),
  v.check(wellFormed, 'must be valid Unicode (it holds a lone surrogate)'),
  v.check(controls, 'must not contain control characters'),
  v.check((value) => !BIDI_CONTROLS.test(value), 'must not contain bidirectional override characters'),
  v.transform((value) => value.normalize('NFC')),
  v.check((value) => characterCount(value) <= max, `must be at most ${max} characters`),
);

/** A name or any one-line text. */
export const text = (max: number) => readable(max, noControlChars);

/** A description or other multi-line text: line breaks and tabs allowed. */
export const multilineText = (max: number) => readable(max, noControlCharsButLines);

/**
 * Identifiers a client chooses (externalId, codes, ids, idempotency keys): letters, marks, digits,
 * punctuation and symbols of any script and inner ASCII spaces, in NFC; no other spaces, control,
 * format (bidi, zero-width) or private-use characters, so two ids that look alike are alike.
 */
const PRINTABLE_ID = /^(?! )[\p{L}\p{M}\p{N}\p{P}\p{S} ]*(?<! )$/u;
export const identifier = (max: number) => v.pipe(
  v.string('must be a string'),
  v.minLength(1, 'must not be empty'),
  v.check(wellFormed, 'must be valid Unicode (it holds a lone surrogate)'),
  v.check(noControlChars, 'must not contain control characters'),
  v.check((value) => !wellFormed(value) || !noControlChars(value) || PRINTABLE_ID.test(value),
    'must hold only letters, digits, punctuation, symbols and inner spaces (no invisible or bidirectional characters)'),
  v.check((value) => !wellFormed(value) || value.normalize('NFC') === value, 'must be in Unicode normalization form C (NFC)'),
  v.check((value) => characterCount(value) <= max, `must be at most ${max} characters`),
);

/** A member's email, whoever sends it: the API, the widget's signed profile, a store. */
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

export const timestamp = v.pipe(
  v.string('must be a string'),
  v.isoTimestamp('must be an ISO 8601 date-time such as 2026-12-31T23:59:59Z'),
  v.check((value) => isRealDate(value.slice(0, 10)), 'is not a real calendar date'),
  v.transform((value) => new Date(value)),
  v.check((date) => !Number.isNaN(date.getTime()), 'is not a real date-time'),
);
