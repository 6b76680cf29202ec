// Shared by the server processes bench/run.ts starts: they stop when asked (IPC message, SIGTERM)
// and also when the bench process goes away, however it ends (its IPC channel then closes).

import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ParentMessage = { type: 'stop' } | { type: 'reset' } | { type: 'stats' };

let stopping = false;

/** Why the process stops: asked to (message, signal), or its parent is gone and nobody will clean up. */
export type StopReason = 'asked' | 'orphaned';

/** Calls `stop` once on a stop request or when the parent disappears; forces the exit after 10 s. */
export function exitWithParent(stop: (reason: StopReason) => void, onMessage?: (message: ParentMessage) => void): void {
  const once = (reason: StopReason) => {
    if (stopping) return;
    stopping = true;
    setTimeout(() => process.exit(1), 10_000).unref();
    stop(reason);
  };
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'stop') once('asked');
    else onMessage?.(message);
  });
  process.once('disconnect', () => once('orphaned'));
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.once(signal, () => {
      // The bench asks over IPC; a signal came from someone else, which is worth saying.
      if (!stopping) process.stderr.write(`${process.argv[1]} (pid ${process.pid}): received ${signal}, stopping\n`);
      once('asked');
    });
  }
}

/** Sends a reply to the parent over IPC (ignored when the channel is gone). */
export function reply(message: unknown): void {
  if (process.connected) process.send?.(message);
}

/**
 * Runs a reference server (bare node:http, the h3 floor) the way Punchcard's server runs: same
 * keep-alive timeout, 127.0.0.1 on a free port. Prints {"url": …} as one JSON line when listening
 * and stops with its parent.
 */
export function serveReference(server: Server): void {
  server.keepAliveTimeout = 65_000; // as Punchcard's server does
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    console.log(JSON.stringify({ url: `http://127.0.0.1:${port}` }));
  });
  exitWithParent(() => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}
