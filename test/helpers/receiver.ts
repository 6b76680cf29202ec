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
    /** Resolves once `count` requests arrived; rejects after `timeoutMs`. */
    async waitFor(count: number, timeoutMs = 5_000): Promise<Received[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} of ${count} requests within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return received;
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
