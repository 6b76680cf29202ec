// The server process of the webhook, backlog and soak benches: `SELF serve …args` through tsx,
// pinned to CPU 0, ready when it prints one JSON line `{url, secretKey}`; stopped with SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';

export interface PinnedServer { process: ChildProcess; url: string; secretKey: string; spawnedAt: number; readyAt: number }

export function startPinnedServer(self: string, args: string[], env: NodeJS.ProcessEnv = {}, execArgv: string[] = []): Promise<PinnedServer> {
  const spawnedAt = performance.now();
  const child = spawn('taskset', ['-c', '0', process.execPath, ...execArgv, '--import', 'tsx', self, 'serve', ...args], {
    stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, ...env },
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (line) resolve({ process: child, spawnedAt, readyAt: performance.now(), ...(JSON.parse(line) as { url: string; secretKey: string }) });
    });
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
  });
}

export async function stopPinnedServer(child: PinnedServer): Promise<void> {
  const exited = new Promise((resolve) => child.process.once('exit', resolve));
  child.process.kill('SIGTERM');
  await exited;
}
