// Words the widget builds from the server's numbers, so every panel says them the same way.
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError, connection, errorKey, type Availability, type Call } from './api.ts';
import { Ctx } from './context.ts';
import type { Translate } from './i18n.ts';
import type { Key } from './strings.ts';

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

/** History kinds the widget already had words for. */
const SAME_WORDS: Record<string, Key> = { welcome_bonus: 'welcomeBonus', points_earned: 'tEARNED', adjustment: 'tDEDUCTED', refund: 'tREFUNDED' };

/** A history line in the shopper's language from its kind and parameters (each named by its first letter in the strings). */
export function historyText(t: Translate, entry: { kind: string; params: Record<string, string | number> }): string {
  if (entry.params.note) return String(entry.params.note);
  const values = Object.fromEntries(Object.entries(entry.params).map(([name, value]) => [name[0]!, value]));
  const key = (SAME_WORDS[entry.kind] ?? `h_${entry.kind}`) as Key;
  const text = t(key, values);
  return text === key ? t('tEARNED') : text;
}

/** Whether the server is unreachable now; re-renders when that changes. */
function useOffline(): boolean {
  const [offline, setOffline] = useState(connection.offline);
  useEffect(() => {
    const listener = () => setOffline(connection.offline);
    connection.listeners.add(listener);
    return () => void connection.listeners.delete(listener);
  }, []);
  return offline;
}

/**
 * While the server cannot be reached, retries with growing waits (and at once when the browser is
 * back online); `onBack` refreshes what is shown once it answers again.
 */
export function useReconnect(call: Call, onBack: () => void): void {
  const offline = useOffline();
  const wasOffline = useRef(false);
  useEffect(() => {
    if (!offline) {
      if (wasOffline.current) onBack();
      return;
    }
    wasOffline.current = true;
    let wait = 2000;
    let timer = 0;
    const retry = () => {
      clearTimeout(timer);
      void call('GET', '/profile').catch(() => undefined);
      timer = window.setTimeout(retry, (wait = Math.min(wait * 2, 60_000)));
    };
    timer = window.setTimeout(retry, wait);
    addEventListener('online', retry);
    return () => {
      clearTimeout(timer);
      removeEventListener('online', retry);
    };
  }, [offline]);
}

/** Says the server cannot be reached, with the last balance known. */
export function OfflineNote() {
  const { t, member } = useContext(Ctx);
  return useOffline() ? <p class="note" role="status" data-testid="offline">{t('offline', { n: member.points })}</p> : null;
}
