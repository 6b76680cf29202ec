// The single executable's size, start-up time and idle memory (`npm run bench:binary`, after
// `npm run build:binary`). Start-up is measured from spawn to the first answered request, on a
// database that already exists (a restart); idle memory is the server's RSS once it has answered
// a few requests and settled, and again once it has idled for half a minute. Beside it, the same
// figures for `npm start` (Node + dist/punchcard.cjs) and for the embedded Node doing nothing,
// which is the floor the executable starts from.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMs } from './machine.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BINARY = join(ROOT, 'dist/punchcard');
const RUNS = Number(process.env.RUNS ?? 10);
const PORT = 3990;

if (!existsSync(BINARY)) {
  console.error('bench:binary: dist/punchcard is missing; run `npm run build:binary` first');
  process.exit(1);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const statusMb = (pid: number, field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;
/** Resident memory, and its split: private (anonymous: the heaps) and file-backed (the executable's own pages, shared and reclaimable). */
const rss = (pid: number) => `${statusMb(pid, 'VmRSS').toFixed(1)} MB (private ${statusMb(pid, 'RssAnon').toFixed(1)}, file-backed ${statusMb(pid, 'RssFile').toFixed(1)})`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One GET; resolves with the status, or 0 when nothing listens yet. */
const get = (path: string) => new Promise<number>((resolve) => {
  const req = request({ host: '127.0.0.1', port: PORT, path, agent: false }, (res) => {
    res.resume();
    res.once('end', () => resolve(res.statusCode ?? 0));
  });
  req.once('error', () => resolve(0));
  req.end();
});

/** Spawns `command`, polls until it answers, and returns the time that took, then its settled RSS. */
async function startOnce(command: string[], env: NodeJS.ProcessEnv, measureRss: boolean): Promise<{ startMs: number; cpu: number; memory: string }> {
  const started = performance.now();
  const child = spawn(command[0]!, command.slice(1), { env, stdio: 'ignore' });
  let exitCode: number | string | null | undefined;
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => {
    exitCode = code ?? signal;
    resolve(exitCode);
  }));
  while ((await get('/healthz')) === 0) {
    if (exitCode !== undefined) throw new Error(`${command.join(' ')} exited (${exitCode}) before answering`);
    await pause(2);
  }
  const startMs = performance.now() - started;
  const cpu = cpuMs(child.pid!);
  let memory = '';
  if (measureRss) {
    for (let i = 0; i < 20; i++) await get('/api/v1/members');
    await pause(3000); // idle: timers, lazy compilation and the first GC have run
    memory = rss(child.pid!);
    // Left alone longer, V8's memory reducer shrinks the young generation a busy start grew.
    await pause(30_000);
    memory += `; after 30 s more ${rss(child.pid!)}`;
  }
  child.kill('SIGTERM');
  await exited;
  return { startMs, cpu, memory };
}

async function measure(name: string, command: (db: string) => string[]): Promise<string> {
  const folder = mkdtempSync(join(tmpdir(), 'punchcard-bench-binary-'));
  const db = join(folder, 'punchcard.db');
  const env = { PATH: process.env.PATH, HOME: folder, PUNCHCARD_LOG: 'silent' };
  try {
    spawnSync(BINARY, ['--db', db, 'migrate'], { env, stdio: 'ignore' });
    await startOnce(command(db), env, false); // the first start creates the Default project
    const starts: number[] = [];
    const cpus: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const { startMs, cpu } = await startOnce(command(db), env, false);
      starts.push(startMs);
      cpus.push(cpu);
    }
    const { memory } = await startOnce(command(db), env, true);
    return `${name}: first answered request ${median(starts).toFixed(0)} ms after spawn (median of ${RUNS}; min ${Math.min(...starts).toFixed(0)}, max ${Math.max(...starts).toFixed(0)}; CPU used until then ${median(cpus)} ms), idle RSS ${memory}`;
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Wall time of a short command, median of RUNS. */
function commandMs(command: string[]): number {
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const started = performance.now();
    spawnSync(command[0]!, command.slice(1), { stdio: 'ignore' });
    times.push(performance.now() - started);
  }
  return median(times);
}

const cache = join(ROOT, 'node_modules/.cache/punchcard-binary');
const embeddedNode = readdirSync(cache).filter((name) => name.startsWith('node-v')).map((name) => join(cache, name, 'bin/node')).find(existsSync);

console.log(`dist/punchcard: ${(statSync(BINARY).size / 1024 / 1024).toFixed(1)} MB`);
// Whether V8 takes the executable's trained code cache (cli/build-binary.mjs); refused, every start compiles what it runs.
const cacheCheck = spawnSync(BINARY, ['--version'], { env: { PATH: process.env.PATH, PUNCHCARD_BUILD_CODE_CACHE: 'check' }, encoding: 'utf8' });
console.log(`code cache: ${/code cache (\w+)/.exec(cacheCheck.stderr)?.[1] ?? 'unknown'}`);
console.log(`punchcard --version: ${commandMs([BINARY, '--version']).toFixed(0)} ms (npm start's node cli/punchcard.mjs --version: ${commandMs([process.execPath, join(ROOT, 'cli/punchcard.mjs'), '--version']).toFixed(0)} ms)`);
if (embeddedNode) {
  console.log(`embedded Node alone (${embeddedNode.split('/').at(-3)}), node -e 0: ${commandMs([embeddedNode, '-e', '0']).toFixed(0)} ms`);
  console.log(`machine load (1 min) during this run: ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]} on 2 cores`);
  const idle = spawn(embeddedNode, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  await pause(1000);
  console.log(`embedded Node alone, idle RSS: ${rss(idle.pid!)}`);
  idle.kill();
}
console.log(await measure('dist/punchcard serve', (db) => [BINARY, '--db', db, 'serve', '--port', String(PORT)]));
console.log(await measure('npm start (node cli/punchcard.mjs serve)', (db) => [process.execPath, join(ROOT, 'cli/punchcard.mjs'), '--db', db, 'serve', '--port', String(PORT)]));
