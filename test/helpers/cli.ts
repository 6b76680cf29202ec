import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { TEST_MASTER_KEY } from './server.ts';

export const BIN = fileURLToPath(new URL('../../cli/punchcard.mjs', import.meta.url));
const env = { ...process.env, PUNCHCARD_MASTER_KEY: TEST_MASTER_KEY, PUNCHCARD_LOG: 'silent' };

/** Runs the real `punchcard` command (with `extraEnv` on top of the tests' environment) and returns what it printed. */
export function punchcard(args: string[], extraEnv: NodeJS.ProcessEnv = {}): { status: number; stdout: string; stderr: string } {
  const result = spawnSync(process.execPath, [BIN, ...args], { env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 30_000 });
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

export function punchcardJson(args: string[]): any {
  const result = punchcard([...args, '--json']);
  if (result.status !== 0) throw new Error(`punchcard ${args.join(' ')} failed: ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Starts `punchcard serve --port 0 [args]` and resolves once it prints its URL (and, on an empty database, its keys). */
export function spawnServer(dbPath: string, args: string[] = [], extraEnv: NodeJS.ProcessEnv = {}): Promise<{ child: ChildProcessWithoutNullStreams; url: string; output: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', dbPath, ...args], { env: { ...env, ...extraEnv } });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /^Punchcard listening on (http:\/\/\S+)/m.exec(output)?.[1]; // stderr may come first
      if (url) {
        clearTimeout(timer);
        resolve({ child, url, output: () => output });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${output}`));
    });
  });
}
