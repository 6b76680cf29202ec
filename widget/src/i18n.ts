import type { Key } from './strings.ts';

export type Translate = (key: Key, values?: Record<string, string | number>) => string;

/** The languages written right to left: the widget lays itself out mirrored for them, whatever the page's own direction. */
export const direction = (language: string) => (['ar', 'he'].includes(language.split('-')[0]!) ? 'rtl' : 'ltr');

/**
 * A translator over the strings init (or the guest view) answered with for the visitor's language:
 * the server fills in English for a string a language lacks. Numbers are formatted for the locale;
 * in a right-to-left language a name put into a sentence ("Double weekend", a date) is isolated
 * (FSI…PDI), so its own direction cannot scramble the sentence around it.
 */
export function translator(language: string, strings: Record<Key, string>): Translate {
  const number = new Intl.NumberFormat(language);
  const isolate = direction(language) === 'rtl' ? (text: string) => `\u2068${text}\u2069` : String;
  return (key, values = {}) => (strings[key] ?? key).replace(/\{(\w)\}/g, (_, name: string) => {
    const value = values[name];
    return typeof value === 'number' ? number.format(value) : isolate(String(value ?? ''));
  });
}
