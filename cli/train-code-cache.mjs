// The training start behind a code cache (cli/run-bundle.cjs): the built command serves an empty
// database, answers /healthz and a refused API call, and writes the code V8 compiled meanwhile as
// it exits. Used by `npm run build` (for npm start) and `npm run build:binary` (for the executable).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Starts `command serve` (command: the program and its first arguments), writes the cache to `out`. */
export async function trainCodeCache(command, out) {
  const [file, ...prefix] = command;
  const folder = mkdtempSync(join(tmpdir(), 'punchcard-train-'));
  try {
    // No NODE_OPTIONS: V8 refuses a cache made under other flags.
    const env = { PATH: process.env.PATH, HOME: folder, TMPDIR: folder, PUNCHCARD_LOG: 'silent', PUNCHCARD_BUILD_CODE_CACHE: out };
    const db = join(folder, 'punchcard.db');
    execFileSync(file, [...prefix, '--db', db, 'migrate'], { env: { ...env, PUNCHCARD_BUILD_CODE_CACHE: '' }, stdio: 'ignore' });
    const server = spawn(file, [...prefix, '--db', db, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    let printed = '';
    const url = await new Promise((resolve, reject) => {
      server.stdout.on('data', (chunk) => {
        printed += chunk;
        const found = /^Punchcard listening on (http:\/\/\S+)/m.exec(printed)?.[1];
        if (found) resolve(found);
      });
      server.once('exit', () => reject(new Error(`the training start exited before listening: ${printed}`)));
    });
    for (const path of ['/healthz', '/api/v1/members']) await (await fetch(`${url}${path}`)).arrayBuffer();
    server.kill('SIGTERM');
    await exited;
    if (!existsSync(out)) throw new Error('the training start wrote no code cache');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
