// Open-loop load: request n is due at start + n / rate whatever happened to the ones before it,
// and its latency counts from that due time, so a server that falls behind shows its queue in the
// p99. (wrk is closed loop: it sends only when an answer comes back, and its connections fire
// together, so its p99 at a steady rate measures the bursts queuing behind each other.)
//
// runOpenLoop() runs this file in its own process pinned to the load core (as wrk is), hands it
// the load on stdin and reads back one JSON line. Node's http client with a keep-alive agent and
// enough sockets that a slow answer never holds back the next due request.
import { spawn } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';
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
  /** The server's process, whose CPU time is read over the measured requests. */
  serverPid: number;
}

export interface OpenLoopResult {
  rate: number;
  /** Measured requests (the warm-up's are not counted). */
  requests: number;
  /** From each request's due time to the end of its answer. */
  latencyMs: { p50: number; p99: number; max: number };
  /** How late requests left the client (p99): more than a millisecond or two means the client was short of CPU. */
  sendLagP99Ms: number;
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

/** The client itself: sends on schedule, waits for the last answer, returns the figures. */
async function generate(load: OpenLoopLoad): Promise<Omit<OpenLoopResult, 'foreign'>> {
  const agent = new Agent({ keepAlive: true, maxSockets: 2048 });
  const headers: Record<string, string | number> = { authorization: load.authorization };
  if (load.body !== undefined) Object.assign(headers, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(load.body) });
  const firstMeasured = Math.round(load.rate * load.warmupSeconds);
  const total = firstMeasured + Math.round(load.rate * load.seconds);
  const latencies: number[] = [];
  const lags: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let sent = 0;
  let pending = 0;
  const serverCpu: { read?: () => number[] | null } = {};
  let allAnswered: () => void = () => {};

  const send = (n: number, due: number) => {
    if (n === firstMeasured) serverCpu.read = watchCpu([load.serverPid]);
    const measured = n >= firstMeasured;
    if (measured) lags.push(performance.now() - due);
    pending++;
    let settled = false;
    const settle = (failed: boolean) => {
      if (settled) return;
      settled = true;
      if (measured && failed) errors++;
      if (--pending === 0 && sent === total) allAnswered();
    };
    const req = request(`${load.url}${load.paths[n % load.paths.length]}`, { method: load.method, agent, headers, timeout: TIMEOUT_MS }, (res) => {
      res.resume();
      res.once('end', () => {
        if (measured && !settled) {
          latencies.push(performance.now() - due);
          if (res.statusCode! >= 400) non2xx++;
        }
        settle(false);
      });
    });
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', () => settle(true));
    req.end(load.body);
  };

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
  agent.destroy();
  latencies.sort((a, b) => a - b);
  lags.sort((a, b) => a - b);
  const requests = total - firstMeasured;
  return {
    rate: load.rate,
    requests,
    latencyMs: { p50: round2(percentile(latencies, 50)), p99: round2(percentile(latencies, 99)), max: round2(latencies.at(-1) ?? NaN) },
    sendLagP99Ms: round2(percentile(lags, 99)),
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
