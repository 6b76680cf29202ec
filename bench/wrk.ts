// Load from wrk (the Debian package), one thread pinned to the load core, against 127.0.0.1 only.
// The server's CPU per request comes from /proc/<pid>/stat (utime + stime) before and after.
import { execFileSync, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { watchCpu, watchForeignLoad, type ForeignLoad } from './machine.ts';
import { LOAD_CORE, pinned } from './processes.ts';

const SCRIPT = fileURLToPath(new URL('./wrk.lua', import.meta.url));

/** Installs wrk with apt-get when it is missing (Debian, as root); otherwise says how. */
export function ensureWrk(): void {
  const has = () => {
    try {
      execFileSync('wrk', ['--version'], { stdio: 'ignore' });
      return true;
    } catch (error) {
      // wrk --version exits 1 after printing its banner; only a missing binary is ENOENT.
      return (error as NodeJS.ErrnoException).code !== 'ENOENT';
    }
  };
  if (has()) return;
  console.log('wrk is missing; installing it: apt-get update && apt-get install -y wrk');
  try {
    execFileSync('apt-get', ['update'], { stdio: 'inherit' });
    execFileSync('apt-get', ['install', '-y', 'wrk'], { stdio: 'inherit' });
  } catch {
    throw new Error('Could not install wrk. Install it yourself (Debian/Ubuntu: apt-get install wrk) and run the bench again.');
  }
  if (!has()) throw new Error('wrk is still missing after apt-get install wrk');
}

export interface Load {
  method: 'GET' | 'POST';
  /** Request paths, taken in turn. */
  paths: string[];
  /** Each `{n}` becomes the request's number within this wrk run (bench/wrk.lua). */
  body?: string;
  authorization: string;
}

export interface LoadResult {
  seconds: number;
  requests: number;
  requestsPerSecond: number;
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  /** Answers with a status of 400 or more. */
  non2xx: number;
  /** Socket errors and timeouts. */
  errors: number;
  /** Server process CPU (user + system, all threads) per answered request, µs; null off Linux. */
  serverCpuUs: number | null;
  /** CPU used by processes other than the server and wrk during the run (Linux only). */
  foreign: ForeignLoad | null;
}

interface WrkSummary {
  requests: number; durationUs: number; status: number; connect: number; read: number; write: number; timeout: number;
  p50: number; p90: number; p99: number; max: number; mean: number;
}

const ms = (us: number) => Math.round(us / 10) / 100;

/** Runs `wrk -t1 -c<connections> -d<seconds>` with bench/wrk.lua and measures the server meanwhile. */
export function runWrk(url: string, load: Load, options: { seconds: number; connections: number; serverPid: number; workDir: string }): Promise<LoadResult> {
  const pathsFile = join(options.workDir, `paths-${process.hrtime.bigint()}.txt`);
  writeFileSync(pathsFile, `${load.paths.join('\n')}\n`);
  const [command, args] = pinned(LOAD_CORE, 'wrk', [
    '-t1', `-c${options.connections}`, `-d${options.seconds}s`, '--timeout', '10s', '--latency', '-s', SCRIPT, url,
  ]);
  const serverCpu = watchCpu([options.serverPid]);
  return new Promise((resolve, reject) => {
    const wrk = spawn(command, args, {
      env: { ...process.env, WRK_METHOD: load.method, WRK_BODY: load.body ?? '', WRK_AUTH: load.authorization, WRK_PATHS: pathsFile },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    // Foreign load is read just before wrk ends, while its /proc entry still exists.
    const foreignLoad = watchForeignLoad([process.pid, options.serverPid, wrk.pid!]);
    let foreign: ForeignLoad | null = null;
    const foreignTimer = setTimeout(() => (foreign = foreignLoad()), Math.max(500, options.seconds * 1000 - 300));
    const killTimer = setTimeout(() => wrk.kill('SIGKILL'), (options.seconds + 30) * 1000);
    let out = '';
    wrk.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString('utf8')));
    wrk.once('error', reject);
    wrk.once('exit', (code) => {
      clearTimeout(foreignTimer);
      clearTimeout(killTimer);
      const line = out.split('\n').reverse().find((l) => l.startsWith('{'));
      if (code !== 0 || !line) return reject(new Error(`wrk exited with ${code}:\n${out}`));
      const s = JSON.parse(line) as WrkSummary;
      const cpu = serverCpu();
      const seconds = s.durationUs / 1e6;
      resolve({
        seconds,
        requests: s.requests,
        requestsPerSecond: Math.round(s.requests / seconds),
        latencyMs: { mean: ms(s.mean), p50: ms(s.p50), p90: ms(s.p90), p99: ms(s.p99), max: ms(s.max) },
        non2xx: s.status,
        errors: s.connect + s.read + s.write + s.timeout,
        serverCpuUs: cpu ? Math.round((cpu[0]! * 1e6 * 10) / Math.max(s.requests, 1)) / 10 : null,
        foreign,
      });
    });
  });
}
