import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startServer, type RunningServer } from '../src/server.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';
import { widgetHeader } from './helpers/widget.ts';

/**
 * A client that goes away half-way through its body (a phone losing signal, a closed tab) is not
 * a fault of the server: one info line says so, never an ERROR with a stack trace.
 */

let dir: string;
let server: RunningServer;
const written: string[] = [];
let onWrite: (() => void) | null = null;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-aborted-'));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    written.push(String(chunk));
    onWrite?.();
    return true;
  });
  server = await startServer({ db: join(dir, 'punchcard.db'), port: 0, host: '127.0.0.1', logLevel: 'info', quiet: true, scheduler: false,
    masterKey: TEST_MASTER_KEY, webhooks: { runner: false }, commerce: { runner: false } });
});
afterAll(async () => {
  await server.close();
  vi.restoreAllMocks();
  rmSync(dir, { recursive: true, force: true });
});

/** Sends the head and part of a body, then drops the connection; resolves at the server's next log line. */
function dropHalfWay(path: string, headers: string): Promise<void> {
  const logged = new Promise<void>((resolve) => {
    onWrite = () => {
      onWrite = null;
      resolve();
    };
  });
  const { port } = new URL(server.url);
  const socket = connect(Number(port), '127.0.0.1', () => {
    // Once the head and the first bytes are sent, the client goes away.
    socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n${headers}\r\n{"externalId":`, () => socket.destroy());
  });
  socket.on('error', () => {});
  return logged;
}

describe('a request body dropped half-way', () => {
  it('logs one info line, not an ERROR with a stack', async () => {
    const key = server.bootstrap!.secretKey;
    written.length = 0;
    await dropHalfWay('/api/v1/members', `Authorization: Bearer ${key}\r\n`);
    const lines = written.join('').trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toMatch(/ERROR|unhandled|\bat\b/);
    expect(lines[0]).toMatch(/^\S+Z POST \/api\/v1\/members: the connection closed before the request body was complete$/);
  });

  it('on the widget API too (which shapes its own errors), naming the route, never the path', async () => {
    const { publishableKey, widgetSecret } = server.bootstrap!;
    written.length = 0;
    const ticket = widgetHeader({ publicKey: publishableKey, widgetSecret }, 'ada@example.com', Date.now());
    await dropHalfWay('/api/widget/init', `X-Widget-Auth: ${ticket}\r\n`);
    expect(written.join('').trim().split('\n')).toEqual([expect.stringMatching(/^\S+Z POST \/api\/widget\/init: the connection closed before the request body was complete$/)]);
  });
});
