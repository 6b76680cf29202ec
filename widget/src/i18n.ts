import { EN, KEYS, LANGUAGES, type Key } from './strings.ts';

export type Translate = (key: Key, values?: Record<string, string | number>) => string;

/**
 * The language to show: the one init asked for, else the browser's first supported language
 * (exact, then by its base: pt-BR → pt, zh-TW → zh-CN), else the project's default.
 */
export function pickLanguage(requested: string | undefined, offered: string[], projectDefault: string): string {
  const supported = offered.filter((language) => LANGUAGES.includes(language));
  const match = (wanted: string) => supported.find((l) => l.toLowerCase() === wanted.toLowerCase())
    ?? supported.find((l) => l.split('-')[0] === wanted.toLowerCase().split('-')[0]);
  for (const wanted of [requested, ...navigator.languages]) {
    const found = wanted ? match(wanted) : undefined;
    if (found) return found;
  }
  return supported.includes(projectDefault) ? projectDefault : 'en';
}

/** The strings of a language other than English, from the server; English if they cannot be had. */
export async function loadStrings(apiUrl: string, language: string, signal: AbortSignal): Promise<string> {
  if (language === 'en') return EN;
  try {
    const response = await fetch(`${apiUrl}/widget/strings/${language}.json`, { signal });
    if (response.ok) return ((await response.json()) as { strings: string }).strings;
  } catch (error) {
    if ((error as Error).name === 'AbortError') throw error;
  }
  return EN;
}

/** A translator for one language's strings; numbers in messages are formatted for its locale. */
export function translator(language: string, line: string): Translate {
  const words = line.split('|');
  const english = EN.split('|');
  const number = new Intl.NumberFormat(language);
  return (key, values = {}) => {
    const index = KEYS.indexOf(key);
    return (words[index] ?? english[index] ?? key).replace(/\{(\w)\}/g, (_, name: string) => {
      const value = values[name];
      return typeof value === 'number' ? number.format(value) : String(value ?? '');
    });
  };
}
