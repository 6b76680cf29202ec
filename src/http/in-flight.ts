import type { IncomingMessage, ServerResponse } from 'node:http';
import { SwapList } from '../shared/swap-list.ts';

export interface InFlight {
  /** The Node listener, counting each request until its answer is sent or its client goes away. */
  listener: (req: IncomingMessage, res: ServerResponse) => unknown;
  /**
   * From now on every answer closes its connection (a keep-alive client then reconnects elsewhere
   * instead of sending more here); resolves once the requests received whole are answered, or after
   * `timeoutMs` with how many were still running.
   */
  finish(timeoutMs: number): Promise<number>;
}

/**
 * Counts the requests being answered, so a shutdown waits for them: an award whose transaction
 * committed is answered before the process exits, instead of its socket being cut. A request
 * whose body is still arriving (a slow or stalled client) is not waited for: nothing of it was
 * acted on, so cutting it loses nothing.
 */
export function trackInFlight(listener: (req: IncomingMessage, res: ServerResponse) => unknown): InFlight {
  // Not a Map: see SwapList for what a Map's churn cost here.
  const open = new SwapList<{ req: IncomingMessage; res: ServerResponse }>();
  let closing = false;
  let settle: (() => void) | null = null;
  // Received whole and not yet answered; requests that arrive while closing count too.
  const busy = () => [...open].filter(({ req }) => req.complete).length;
  return {
    listener(req, res) {
      const entry = open.add({ req, res });
      if (closing) res.setHeader('connection', 'close');
      res.once('close', () => {
        open.remove(entry);
        if (settle && busy() === 0) settle();
      });
      return listener(req, res);
    },
    finish(timeoutMs) {
      closing = true;
      for (const { res } of open) if (!res.headersSent) res.setHeader('connection', 'close');
      if (busy() === 0) return Promise.resolve(0);
      return new Promise((resolve) => {
        const timer = setTimeout(() => resolve(busy()), timeoutMs);
        settle = () => {
          clearTimeout(timer);
          resolve(0);
        };
      });
    },
  };
}
