// Open-loop load: request n is due at start + n / rate whatever happened to the ones before it,
// and its latency counts from that due time, so a server that falls behind shows its queue in the
// p99. (wrk is closed loop: it sends only when an answer comes back, and its connections fire
// together, so its p99 at a steady rate measures the bursts queuing behind each other.)
//
// runOpenLoop() runs this file in its own process pinned to the load core (as wrk is), hands it
// the load on stdin and reads back one JSON line. A slow answer never holds back the next due
// request: that one goes out on another keep-alive connection, opened if none is idle.
import { spawn } from 'node:child_process';
import { connect, type Socket } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { watchCpu, watchForeignLoad, type ForeignLoad } from './machine.ts';
import { children, LOAD_CORE, pinned } from './processes.ts';

export interface OpenLoopLoad {
  url: string;
  /** Requests per second. */
  rate: number;
  /** Seconds at the rate before measuring: connections opened, the JIT warm. */
  warmupSeconds: number;
  seconds: number;
  method: 'GET' | 'POST';
  /** Request paths, taken in turn. */
  paths: string[];
  body?: string;
  authorization: string;
  /**
   * Requests that differ one from the next (signed deliveries, each with its own id): the client
   * imports `module` (a file path) and calls its `prepareRequests(options, count)` before the run,
   * which returns each request's body and extra headers, taken in turn instead of `body`.
   */
  requests?: { module: string; options: unknown };
  /** The server's process, whose CPU time is read over the measured requests. */
  serverPid: number;
}

export interface OpenLoopResult {
  rate: number;
  /** Measured requests (the warm-up's are not counted). */
  requests: number;
  /** From each request's due time to the end of its answer (or its failure). */
  latencyMs: { p50: number; p99: number; max: number };
  /** How late requests left the client (p99): more than a millisecond or two means the client was short of CPU. */
  sendLagP99Ms: number;
  /** The client's own CPU per request, µs. */
  clientCpuUs: number;
  non2xx: number;
  /** Socket errors and timeouts (10 s). */
  errors: number;
  /** Server CPU (user + system, all threads) per measured request, µs; null off Linux. */
  serverCpuUs: number | null;
  /** CPU other processes used meanwhile (Linux only). */
  foreign: ForeignLoad | null;
}

const TIMEOUT_MS = 10_000;
const round2 = (n: number) => Math.round(n * 100) / 100;
const percentile = (sorted: number[], p: number) =>
  sorted.length === 0 ? NaN : sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/**
 * Where the response at the start of `buf` ends, with its status and whether the server closes the
 * connection after it; null while it is incomplete. Handles Content-Length and chunked bodies.
 */
function responseEnd(buf: Buffer): { status: number; close: boolean; end: number } | null {
  const head = buf.indexOf('\r\n\r\n');
  if (head === -1) return null;
  const headers = buf.toString('latin1', 0, head).toLowerCase();
  const status = Number(headers.slice(9, 12));
  const close = /\r\nconnection: *close/.test(headers);
  let at = head + 4;
  const length = /\r\ncontent-length: *(\d+)/.exec(headers);
  if (length) return buf.length >= at + Number(length[1]) ? { status, close, end: at + Number(length[1]) } : null;
  if (!/\r\ntransfer-encoding: *chunked/.test(headers)) return { status, close, end: at };
  for (;;) {
    const line = buf.indexOf('\r\n', at);
    if (line === -1) return null;
    const size = parseInt(buf.toString('latin1', at, line), 16);
    at = line + 2 + size + 2; // the chunk and its CRLF; after the last (empty) one, the final CRLF
    if (buf.length < at) return null;
    if (size === 0) return { status, close, end: at };
  }
}

/** One request of a `requests` hook: its JSON body and extra headers. */
export interface PreparedRequest {
  body: string;
  headers: Record<string, string>;
}

async function prepareRequests(hook: { module: string; options: unknown }, count: number): Promise<PreparedRequest[]> {
  const made = await import(pathToFileURL(hook.module).href) as { prepareRequests: (options: unknown, count: number) => PreparedRequest[] };
  return made.prepareRequests(hook.options, count);
}

interface Connection {
  socket: Socket;
  /** Bytes of a response not complete yet. */
  received: Buffer | null;
  /** The request this connection carries: one at a time, no pipelining. */
  current: { due: number; measured: boolean; sentAt: number } | null;
  closed: boolean;
}

/**
 * The client itself: sends on schedule, waits for the last answer, returns the figures. HTTP/1.1
 * over keep-alive sockets written by hand: each connection carries one request at a time, and a
 * request that finds none idle opens another. Node's http client costs ~3× the bare server's CPU
 * per request, and on a shared core that made the client, not the server, fall behind.
 */
async function generate(load: OpenLoopLoad): Promise<Omit<OpenLoopResult, 'foreign'>> {
  const target = new URL(load.url);
  const head = `Host: ${target.host}\r\nAuthorization: ${load.authorization}\r\n` +
    (load.body === undefined ? '' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(load.body)}\r\n`);
  const firstMeasured = Math.round(load.rate * load.warmupSeconds);
  const total = firstMeasured + Math.round(load.rate * load.seconds);
  // Made before the clock starts, so neither signing nor building the text counts as the client's lag.
  const prepared = load.requests ? (await prepareRequests(load.requests, total)).map((r, n) =>
    `${load.method} ${load.paths[n % load.paths.length]} HTTP/1.1\r\nHost: ${target.host}\r\nAuthorization: ${load.authorization}\r\n` +
    Object.entries(r.headers).map(([name, value]) => `${name}: ${value}\r\n`).join('') +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(r.body)}\r\n\r\n${r.body}`) : null;
  const requestText = (n: number) => prepared?.[n] ?? `${load.method} ${load.paths[n % load.paths.length]} HTTP/1.1\r\n${head}\r\n${load.body ?? ''}`;
  const latencies: number[] = [];
  const lags: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let sent = 0;
  let pending = 0;
  const serverCpu: { read?: () => number[] | null } = {};
  let allAnswered: () => void = () => {};
  const connections = new Set<Connection>();
  const idle: Connection[] = [];

  // A failed request (timeout, reset) counts with the time it took to fail: leaving it out would flatter the p99.
  const finish = (connection: Connection, status: number | null) => {
    const request = connection.current!;
    connection.current = null;
    if (request.measured) {
      latencies.push(performance.now() - request.due);
      if (status === null) errors++;
      else if (status >= 400) non2xx++;
    }
    if (--pending === 0 && sent === total) allAnswered();
  };

  const open = (): Connection => {
    const connection: Connection = { socket: connect({ host: target.hostname, port: Number(target.port), noDelay: true }), received: null, current: null, closed: false };
    connections.add(connection);
    connection.socket.on('data', (chunk: Buffer) => {
      const buf = connection.received ? Buffer.concat([connection.received, chunk]) : chunk;
      const response = connection.current ? responseEnd(buf) : null;
      if (!response) {
        connection.received = buf;
        return;
      }
      connection.received = null;
      finish(connection, response.status);
      if (response.close) connection.socket.destroy();
      else idle.push(connection);
    });
    connection.socket.on('error', () => {});
    connection.socket.once('close', () => {
      connection.closed = true;
      connections.delete(connection);
      if (connection.current) finish(connection, null);
    });
    return connection;
  };

  const send = (n: number, due: number) => {
    if (n === firstMeasured) serverCpu.read = watchCpu([load.serverPid]);
    const measured = n >= firstMeasured;
    const now = performance.now();
    if (measured) lags.push(now - due);
    let connection = idle.pop();
    while (connection?.closed) connection = idle.pop();
    connection ??= open();
    connection.current = { due, measured, sentAt: now };
    pending++;
    connection.socket.write(requestText(n));
  };

  const timeouts = setInterval(() => {
    const now = performance.now();
    for (const connection of connections) if (connection.current && now - connection.current.sentAt > TIMEOUT_MS) connection.socket.destroy();
  }, 1000);
  const clientCpu = process.cpuUsage();
  const start = performance.now() + 20;
  const dueAt = (n: number) => start + (n * 1000) / load.rate;
  await new Promise<void>((done) => {
    allAnswered = done;
    const tick = () => {
      const now = performance.now();
      while (sent < total && dueAt(sent) <= now) send(sent, dueAt(sent++));
      if (sent < total) setTimeout(tick, Math.max(0, dueAt(sent) - performance.now()));
      else if (pending === 0) done();
    };
    tick();
  });
  const cpu = serverCpu.read?.() ?? null;
  const client = process.cpuUsage(clientCpu);
  clearInterval(timeouts);
  for (const connection of connections) connection.socket.destroy();
  latencies.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  const requests = total - firstMeasured;
  return {
    rate: load.rate,
    requests,
    latencyMs: { p50: round2(percentile(latencies, 50)), p99: round2(percentile(latencies, 99)), max: round2(latencies.at(-1) ?? NaN) },
    sendLagP99Ms: round2(percentile(lags, 99)),
    clientCpuUs: Math.round((10 * (client.user + client.system)) / total) / 10,
    non2xx,
    errors,
    serverCpuUs: cpu ? Math.round((cpu[0]! * 1e7) / Math.max(requests, 1)) / 10 : null,
  };
}

/** Runs the load from a process of its own on the load core; resolves with its figures. */
export function runOpenLoop(load: OpenLoopLoad): Promise<OpenLoopResult> {
  const [command, args] = pinned(LOAD_CORE, process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)]);
  const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  children.add(child);
  const foreignLoad = watchForeignLoad([process.pid, load.serverPid, child.pid!]);
  let foreign: ForeignLoad | null = null;
  // Read while the client still runs: its /proc entry goes when it exits.
  const foreignTimer = setTimeout(() => (foreign = foreignLoad()), Math.max(500, (load.warmupSeconds + load.seconds) * 1000 - 300));
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
  child.stdin!.end(JSON.stringify(load));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      children.delete(child);
      clearTimeout(foreignTimer);
      if (code !== 0) return reject(new Error(`the open-loop client exited with ${code}:\n${out}`));
      resolve({ ...(JSON.parse(out) as Omit<OpenLoopResult, 'foreign'>), foreign });
    });
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let input = '';
  process.stdin.on('data', (chunk: Buffer) => (input += chunk.toString('utf8')));
  process.stdin.once('end', () => {
    generate(JSON.parse(input) as OpenLoopLoad).then((result) => {
      process.stdout.write(`${JSON.stringify(result)}\n`);
      process.exit(0);
    }, (error: unknown) => {
      console.error(error);
      process.exit(1);
    });
  });
}
