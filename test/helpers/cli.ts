import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/** The 0600 file a command wrote its secrets to, instead of a stdout that is not a terminal; null when it wrote none. */
export function secretsFile(printed: string): string | null {
  return /written to (\S+\.secrets\.txt)/.exec(printed)?.[1] ?? null;
}

/**
 * Starts `punchcard serve --port 0 [args]` and resolves once it prints its URL (and, on an empty
 * database, its keys). `printed()` is what it wrote to stdout and stderr; `output()` adds the
 * secrets file its first start wrote (a test's stdout is no terminal), so tests read keys from it.
 */
export function spawnServer(dbPath: string, args: string[] = [], extraEnv: NodeJS.ProcessEnv = {}):
  Promise<{ child: ChildProcessWithoutNullStreams; url: string; output: () => string; printed: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--db', dbPath, ...args], { env: { ...env, ...extraEnv } });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 20_000);
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const url = /^Punchcard listening on (http:\/\/\S+)/m.exec(output)?.[1]; // stderr may come first
      if (url) {
        clearTimeout(timer);
        const file = secretsFile(output);
        const secrets = file ? readFileSync(file, 'utf8') : '';
        resolve({ child, url, output: () => output + secrets, printed: () => output });
      }
    });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${output}`));
    });
  });
}
