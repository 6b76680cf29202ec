// How a bench starts and stops the server it measures: in a process of its own pinned to the server
// core (bench/processes.ts), ready when its output says so, stopped with SIGTERM (Punchcard finishes
// its writes), and killed with the bench however that ends.
// - startBuiltServer: the server a shop runs, `node cli/punchcard.mjs --db FILE serve …` from the
//   dist/ bundle (buildBundle), or with BENCH_SERVER=binary the single executable `dist/punchcard
//   --db FILE serve …` (buildServer builds it), on a database the bench file made with setUp
//   (`SELF setup …` through tsx, in a process that exits before the server starts). The webhook,
//   backlog and soak benches measure this one.
// - startTsxServer: `SELF serve …` through tsx, for a bench that instruments the server inside its
//   process (community); ready on the first JSON line it prints.
// - startServerProcess: what they share, also compare-side.ts's start of each side's `npm start`.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { children, pinned, SERVER_CORE } from './processes.ts';
import { BENCH_MASTER_KEY } from './settings.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

export interface ServerProcess {
  process: ChildProcess;
  /** taskset execs node: the child's pid is the server's. */
  pid: number;
  url: string;
  /** performance.now() at the spawn, and when its output said it was ready. */
  spawnedAt: number;
  readyAt: number;
}

export interface SpawnOptions {
  /** Names the server in errors. */
  label: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** false: not pinned (work that may use any core, such as compare's seeding). */
  pin?: boolean;
}

/** Spawns a server; resolves once `ready` finds in its output so far what it needs (the URL at least). */
export function startServerProcess<T extends { url: string }>(command: string, args: string[], ready: (out: string) => T | undefined,
  { label, cwd = ROOT, env = {}, pin = true }: SpawnOptions): Promise<ServerProcess & T> {
  const spawnedAt = performance.now();
  const [program, argv] = pin ? pinned(SERVER_CORE, command, args) : [command, args];
  // stdin stays open and unused: a tsx server child stops when it ends, that is when the bench is gone.
  const child = spawn(program, argv, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'inherit'] });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`${label}: the server did not start within 60 s:\n${out}`)), 60_000);
    const exited = (code: number | null, signal: string | null) => fail(new Error(`${label}: the server exited (${signal ?? code}) before it was ready:\n${out}`));
    child.once('error', fail);
    child.once('exit', exited);
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      let info: T | undefined;
      try {
        info = ready(out);
      } catch (error) {
        return fail(error as Error);
      }
      if (!info) return;
      clearTimeout(timer);
      child.off('exit', exited);
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      resolve({ process: child, pid: child.pid!, spawnedAt, readyAt: performance.now(), ...info });
    });
  });
}

/** SIGTERM (Punchcard finishes its writes and closes the database), SIGKILL after 15 s. */
export async function stopServer(server: ServerProcess): Promise<void> {
  if (server.process.exitCode !== null || server.process.signalCode !== null) throw new Error('the server exited during the run');
  const exited = new Promise((resolve) => server.process.once('exit', resolve));
  server.process.kill('SIGTERM');
  const timer = setTimeout(() => server.process.kill('SIGKILL'), 15_000);
  await exited;
  clearTimeout(timer);
}

/** The first line `punchcard serve` prints: `Punchcard listening on URL (database …)`. */
export const listening = (out: string): { url: string } | undefined => {
  const url = /listening on (http:\/\/\S+)\s/.exec(out)?.[1];
  return url ? { url } : undefined;
};

/** dist/ rebuilt from the sources as they are now (`npm run build`), so the built server is this checkout's. */
export const buildBundle = (root = ROOT): void => {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
};

/** BENCH_SERVER=binary: the benches that start the built server run the single executable instead. */
const BINARY = process.env.BENCH_SERVER === 'binary';

/** What startBuiltServer runs, built from this checkout: the bundle, or the executable (`npm run build:binary`, which builds the bundle first). */
export const buildServer = (): void => {
  if (BINARY) execFileSync('npm', ['run', 'build:binary', '--silent'], { cwd: ROOT, stdio: 'inherit' });
  else buildBundle();
};

/** Which server startBuiltServer runs, for a bench's first line. */
export const builtServerName = BINARY ? 'the single executable (dist/punchcard)' : 'the built server (dist/)';

/** Runs `SELF setup …args` through tsx, which makes a database (BENCH_MASTER_KEY) and prints `{secretKey}`; resolves with the key. */
export async function setUp(self: string, args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', self, 'setup', ...args], { cwd: ROOT });
  return (JSON.parse(stdout.trim().split('\n').at(-1)!) as { secretKey: string }).secretKey;
}

export type BuiltServer = ServerProcess & { secretKey: string };

/**
 * The built server on `db` (made by setUp, whose `secretKey` it carries along): `node
 * cli/punchcard.mjs --db DB serve` on a free port of 127.0.0.1, errors only in the log, plain-http
 * loopback webhooks allowed, and `flags` besides.
 */
export async function startBuiltServer(db: string, secretKey: string, flags: string[] = []): Promise<BuiltServer> {
  const args = ['--db', db, 'serve', '--port', '0', '--host', '127.0.0.1', '--log-level', 'error', '--allow-insecure-webhooks', ...flags];
  const [command, argv] = BINARY ? [join(ROOT, 'dist/punchcard'), args] : [process.execPath, [join(ROOT, 'cli/punchcard.mjs'), ...args]];
  const server = await startServerProcess(command, argv, listening, { label: `punchcard serve --db ${db}`, env: { PUNCHCARD_MASTER_KEY: BENCH_MASTER_KEY } });
  return { ...server, secretKey };
}

/** `SELF serve …args` through tsx (`execArgv` are Node's flags), ready with the first JSON line it prints, which has its `url`. */
export function startTsxServer<T extends { url: string }>(self: string, args: string[], execArgv: string[] = []): Promise<ServerProcess & T> {
  const firstJsonLine = (out: string) => {
    const line = out.split('\n').slice(0, -1).find((l) => l.startsWith('{'));
    return line === undefined ? undefined : JSON.parse(line) as T;
  };
  return startServerProcess(process.execPath, [...execArgv, '--import', 'tsx', self, 'serve', ...args], firstJsonLine, { label: self });
}
