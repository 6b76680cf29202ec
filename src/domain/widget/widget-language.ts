import { EN, KEYS, LANGUAGES, type Key } from '../../../widget/src/strings.ts';
import { TRANSLATIONS } from '../../../widget/src/translations.ts';

/** The language the widget shows and its strings by key, answered with init and the guest view. */
export interface WidgetLanguage {
  language: string;
  strings: Record<Key, string>;
}

/**
 * The first of the visitor's wishes (init's `language`, then the browser's) that the project
 * offers, exactly or by its base (pt-BR → pt, zh-TW → zh-CN), else the project's default.
 */
export function pickLanguage(wanted: readonly string[], offered: readonly string[], projectDefault: string): string {
  const supported = offered.filter((language) => LANGUAGES.includes(language));
  const base = (language: string) => language.toLowerCase().split('-')[0];
  for (const wish of wanted) {
    const found = supported.find((l) => l.toLowerCase() === wish.toLowerCase()) ?? supported.find((l) => base(l) === base(wish));
    if (found) return found;
  }
  return supported.includes(projectDefault) ? projectDefault : 'en';
}

/** The strings of the picked language, so the widget renders after one call instead of fetching its words next. */
export function widgetLanguage(wanted: readonly string[], settings: { languages: string[]; defaultLanguage: string }): WidgetLanguage {
  const language = pickLanguage(wanted, settings.languages, settings.defaultLanguage);
  const english = EN.split('|');
  // Own keys only ("__proto__" finds nothing); a string a language lacks reads in English.
  const words = (Object.hasOwn(TRANSLATIONS, language) ? TRANSLATIONS[language]! : EN).split('|');
  return { language, strings: Object.fromEntries(KEYS.map((key, i) => [key, words[i] || english[i]!])) as Record<Key, string> };
}
