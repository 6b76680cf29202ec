// Words the widget builds from the server's numbers, so every section says them the same way. Only
// the sections' chunks use them: each carries its own copy, and widget.js none.
import { ApiError, errorKey, type Availability } from '../api.ts';
import type { Translate } from '../i18n.ts';
import type { Key } from '../strings.ts';

/** "10 points", or with a multiplier "5 × 2 = 10 points": the base, the multiplier and what is paid. */
export function pointsText(t: Translate, number: (n: number) => string, base: number, multiplier = 1, total = Math.round(base * multiplier)): string {
  return multiplier === 1 ? t('cost', { n: total }) : `${number(base)} × ${number(multiplier)} = ${t('cost', { n: total })}`;
}

/** An error in the shopper's words: a 429 says when to try again (Retry-After); `notFound` words a 404 for the panel. */
export function errorText(t: Translate, date: (iso: string) => string, error: unknown, notFound: Key = 'notFound'): string {
  if (error instanceof ApiError && error.status === 429 && error.retryAfter) return t('openAt', { d: date(new Date(Date.now() + error.retryAfter * 1000).toISOString()) });
  return t(error instanceof ApiError && error.status === 404 ? notFound : errorKey(error));
}

/** Why a button is disabled and when it opens again, in the shopper's words; '' when it is open. */
export function closedText(t: Translate, date: (iso: string) => string, availability: Availability | null | undefined): string {
  if (!availability?.reason) return '';
  const d = availability.availableAt ? date(availability.availableAt) : '';
  return availability.reason === 'max' ? t('limit') : t(availability.reason === 'daily' ? 'dailyDone' : 'openAt', { d });
}
