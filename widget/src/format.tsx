// The connection as the shopper sees it: a note while the server cannot be reached, and a quiet recovery.
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import { connection, type Call } from './api.ts';
import { Ctx } from './context.ts';

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
      wait = Math.min(wait * 2, 60_000);
      timer = window.setTimeout(retry, wait);
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
