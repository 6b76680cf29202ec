import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  headers: IncomingHttpHeaders;
  /** The raw body, exactly as sent: signatures are verified over it. */
  raw: string;
  body: any;
  /** performance.now() when it arrived. */
  at: number;
}

/** What the receiver does with the n-th request (0-based): answer a status, after a delay, or never. */
export type Behaviour = (received: Received, n: number) => number | { status: number; delayMs: number } | 'hang';

/** A webhook receiver on 127.0.0.1 that records every request and answers as told. */
export async function startReceiver(behaviour: Behaviour = () => 200) {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  // Waiters re-check their condition on every arrival: tests await requests, never sleep.
  const waiters = new Set<() => void>();
  let respond = behaviour;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: unknown = raw;
      try {
        body = JSON.parse(raw);
      } catch {
        // leave the text
      }
      const entry: Received = { headers: req.headers, raw, body, at: performance.now() };
      received.push(entry);
      for (const check of [...waiters]) check();
      const answer = respond(entry, received.length - 1);
      if (answer === 'hang') {
        hanging.add(res);
        return;
      }
      const { status, delayMs } = typeof answer === 'number' ? { status: answer, delayMs: 0 } : answer;
      const send = () => res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'receiver says no');
      if (delayMs > 0) setTimeout(send, delayMs);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    port,
    received,
    setBehaviour(next: Behaviour) {
      respond = next;
    },
    /** Resolves once `done()` holds, checked now and at every arrival (the test's own timeout bounds the wait). */
    until(done: () => boolean): Promise<Received[]> {
      return new Promise((resolve) => {
        const check = () => {
          if (!done()) return;
          waiters.delete(check);
          resolve(received);
        };
        waiters.add(check);
        check();
      });
    },
    /** Resolves once `count` requests arrived. */
    waitFor(count: number): Promise<Received[]> {
      return this.until(() => received.length >= count);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
