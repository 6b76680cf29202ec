// The bench's child processes: each server in its own process, pinned to one core, stopped
// however the bench ends (children are killed and temp dirs removed on exit, signals and errors).
import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { ParentMessage } from './child.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/**
 * Servers run on core 0 and the load generator on core 1 (`taskset`), so neither eats the other's
 * CPU. On a machine with one core, or without taskset, nothing is pinned and the bench says so.
 */
export const PINNED = availableParallelism() >= 2 && process.platform === 'linux';
export const pinned = (core: number, command: string, args: string[]): [string, string[]] =>
  PINNED ? ['taskset', ['-c', String(core), command, ...args]] : [command, args];
export const SERVER_CORE = 0;
export const LOAD_CORE = 1;

// --- cleanup: children and temp dirs go away however this process ends -----------------------

export const children = new Set<ChildProcess>();
export const tempDirs = new Set<string>();
/** Children we asked to stop; any other exit of a started child is unexpected and reported. */
const stopping = new WeakSet<ChildProcess>();
export const unexpectedExits = new Map<ChildProcess, string>();

export function cleanUp(): void {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children.clear();
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  tempDirs.clear();
}
process.once('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    console.error(`\n${signal}: stopping the benchmark`);
    cleanUp();
    process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
  });
}
// --- child processes ---------------------------------------------------------------------------

export interface Child<T> {
  process: ChildProcess;
  info: T;
}

/** Starts a TypeScript file in its own process and resolves with the JSON line it prints first. */
export function startChild<T>(file: string, args: string[], execArgv: string[] = []): Promise<Child<T>> {
  const [command, argv] = pinned(SERVER_CORE, process.execPath, [...execArgv, '--import', 'tsx', here(file), ...args]);
  const child = spawn(command, argv, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return new Promise((resolve, reject) => {
    let out = '';
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(error);
    };
    const timer = setTimeout(() => fail(new Error(`${file} did not start within 60 s`)), 60_000);
    child.once('error', fail);
    child.once('exit', (code, signal) => fail(new Error(`${file} exited (${signal ?? code}) before it was ready`)));
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString('utf8');
      const newline = out.indexOf('\n');
      if (newline === -1) return;
      clearTimeout(timer);
      child.removeAllListeners('exit');
      child.once('exit', (code, signal) => {
        children.delete(child);
        if (stopping.has(child)) return;
        const how = signal ? `signal ${signal}` : `code ${code}`;
        unexpectedExits.set(child, how);
        console.error(`WARNING: ${file} (pid ${child.pid}) exited unexpectedly (${how}) while the bench was running`);
      });
      child.stdout!.removeAllListeners('data');
      child.stdout!.resume();
      try {
        resolve({ process: child, info: JSON.parse(out.slice(0, newline)) as T });
      } catch {
        fail(new Error(`${file} printed ${JSON.stringify(out.slice(0, newline))} instead of a JSON line`));
      }
    });
  });
}

/** Sends a request over IPC and waits for the reply of the same type. */
export function ask<R>(child: ChildProcess, message: ParentMessage): Promise<R> {
  return new Promise((resolve, reject) => {
    if (!child.connected) return reject(new Error(`the server process is gone (${unexpectedExits.get(child) ?? 'exited'}); cannot ask it to ${message.type}`));
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`no answer to ${message.type} within 10 s`));
    }, 10_000);
    const onMessage = (answer: { type: string }) => {
      if (answer.type !== message.type) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(answer as R);
    };
    child.on('message', onMessage);
    child.send(message, (error) => {
      if (!error) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      reject(error);
    });
  });
}

/** Asks the child to stop (Punchcard drains its pending writes) and waits; kills it after 15 s. */
export async function stopChild(child: ChildProcess): Promise<number | null> {
  stopping.add(child);
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  if (child.connected) child.send({ type: 'stop' } satisfies ParentMessage);
  else child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  const code = await exited;
  clearTimeout(timer);
  return code;
}

