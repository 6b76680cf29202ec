// The words the app shows come from one catalogue (en.ts), filled in here: `{name}` placeholders,
// plural forms chosen by Intl.PluralRules, and numbers and dates in the catalogue's locale.
import { en } from './en.ts';

/** A catalogue entry that depends on a count: one form per plural category the language has. */
export type Plural = { one: string; other: string } & Partial<Record<Intl.LDMLPluralRule, string>>;

/** The catalogue the app speaks; a translation is another object of the same shape. */
export const words = en;

const plurals = new Intl.PluralRules(words.locale);
const numbers = new Intl.NumberFormat(words.locale);

/** The template with each `{name}` replaced by its value (numbers formatted). */
export function fill(template: string, values: Record<string, string | number> = {}): string {
  return template.replace(/\{(\w+)\}/g, (match, name: string) => {
    const value = values[name];
    return value === undefined ? match : typeof value === 'number' ? numbers.format(value) : value;
  });
}

/** The form of `entry` for `n`, filled with `{n}` and `values`. */
export const plural = (entry: Plural, n: number, values: Record<string, string | number> = {}) =>
  fill(entry[plurals.select(n)] ?? entry.other, { n, ...values });

export const formatNumber = (n: number) => numbers.format(n);

const compact = new Intl.NumberFormat(words.locale, { notation: 'compact', maximumFractionDigits: 1 });
/** A number as a chart's axis shows it: short ("4.9M"), so large figures fit beside the plot. */
export const formatCompact = (n: number) => compact.format(n);

const dateTimes = new Intl.DateTimeFormat(words.locale, { dateStyle: 'medium', timeStyle: 'short' });
const dates = new Intl.DateTimeFormat(words.locale, { dateStyle: 'medium', timeZone: 'UTC' });

/** A moment (ISO 8601) in the operator's own time zone; an empty string for none. */
export const formatDateTime = (iso: string | null | undefined) => (iso ? dateTimes.format(new Date(iso)) : '');

/** A day (`YYYY-MM-DD`, already in the project's time zone) as the operator reads dates. */
export const formatDay = (day: string) => dates.format(new Date(`${day}T00:00:00Z`));

export const formatPercent = (ratio: number | null) =>
  (ratio === null ? words.common.none : new Intl.NumberFormat(words.locale, { style: 'percent', maximumFractionDigits: 1 }).format(ratio));

export const formatMoney = (money: { amount: number; currency: string } | null, options: { compact?: boolean } = {}) =>
  (money ? new Intl.NumberFormat(words.locale, { style: 'currency', currency: money.currency, ...(options.compact ? { notation: 'compact' } : {}) })
    .format(money.amount) : words.common.none);

/** A ledger source (`api`, `quest`…) as the catalogue names it; an unknown one as it is. */
export const sourceName = (source: string) => (words.sources as Record<string, string>)[source] ?? source;

/** How long to wait, in words: "4 minutes" (rounded up, so the operator never tries too early). */
export function waitText(seconds: number): string {
  if (seconds < 60) return plural(words.time.seconds, Math.max(1, Math.ceil(seconds)));
  if (seconds < 3600) return plural(words.time.minutes, Math.ceil(seconds / 60));
  return plural(words.time.hours, Math.ceil(seconds / 3600));
}
