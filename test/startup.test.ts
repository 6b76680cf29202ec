// What a start does before its first answer (docs in bench/README.md, "Issue 29"): prom-client is
// loaded only after the first request is answered, only the parts of it the metrics use, and what
// was counted before is not lost; source maps stay off.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../src/http/metrics.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const HOOK = fileURLToPath(new URL('./fixtures/first-answer-modules.cjs', import.meta.url));
const BINARY = fileURLToPath(new URL('../dist/punchcard', import.meta.url));
const NPM_START = fileURLToPath(new URL('../cli/punchcard.mjs', import.meta.url));

interface AtRequest {
  /** Node's modules loaded so far. */
  modules: string[];
  sourceMaps: boolean;
}

/**
 * Starts `serve` with the hook preloaded, asks /healthz then /metrics, and returns what the process
 * had loaded as each request arrived. prom-client's index (its default metrics) loads Node's `v8`
 * module, which nothing else of a server needs.
 */
async function stateAtRequests(command: string[]): Promise<Record<string, AtRequest>> {
  const folder = mkdtempSync(join(tmpdir(), 'punchcard-startup-'));
  const env = { PATH: process.env.PATH, HOME: folder, TMPDIR: folder, PUNCHCARD_LOG: 'silent', NODE_OPTIONS: `--require ${HOOK}` };
  const args = ['--db', join(folder, 'punchcard.db'), 'serve', '--port', '0', '--metrics-token', 'scrape'];
  const server = spawn(command[0]!, [...command.slice(1), ...args], { env });
  const exited = new Promise((resolve) => server.once('exit', resolve));
  const seen: Record<string, AtRequest> = {};
  let errors = '';
  server.stderr.on('data', (chunk: Buffer) => {
    errors += chunk.toString();
    for (const [, line] of errors.matchAll(/^modules-at-request (.+)$/gm)) {
      const { url, ...state } = JSON.parse(line!) as AtRequest & { url: string };
      seen[url] ??= state;
    }
  });
  try {
    let printed = '';
    const url = await new Promise<string>((resolve, reject) => {
      server.stdout.on('data', (chunk: Buffer) => {
        printed += chunk.toString();
        const found = /^Punchcard listening on (http:\/\/\S+)/m.exec(printed)?.[1];
        if (found) resolve(found);
      });
      server.once('exit', () => reject(new Error(`serve exited before listening: ${printed}${errors}`)));
    });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    const scrape = await fetch(`${url}/metrics`, { headers: { authorization: 'Bearer scrape' } });
    expect(scrape.status).toBe(200);
    // The request before it was counted, before prom-client was loaded.
    expect(await scrape.text()).toMatch(/^punchcard_http_requests_total\{method="GET",route="\/healthz",status="200"\} 1$/m);
  } finally {
    server.kill('SIGTERM');
    await exited;
    rmSync(folder, { recursive: true, force: true });
  }
  return seen;
}

describe('a start, before its first answer', { timeout: 60_000 }, () => {
  const check = (seen: Record<string, AtRequest>) => {
    expect(seen['/healthz']?.modules).toContain('NativeModule http');
    // Not even once /metrics was asked for: only prom-client's parts load (its index took 69 ms
    // of the event loop, which the requests after the first answer waited for; the parts take 6).
    expect(seen['/healthz']?.modules).not.toContain('NativeModule v8');
    expect(seen['/metrics']?.modules).not.toContain('NativeModule v8');
    // With them on, a start read the bundle's 1.3 MB map and the first error answer parsed it.
    expect(seen['/healthz']?.sourceMaps).toBe(false);
  };

  it('has not loaded prom-client\'s index nor turned source maps on (npm start)', async () => {
    check(await stateAtRequests([process.execPath, NPM_START]));
  });

  it.skipIf(!existsSync(BINARY))('has not loaded prom-client\'s index nor turned source maps on (the single executable)', {
    meta: existsSync(BINARY) ? {} : { skipReason: 'dist/punchcard is not built here: `npm run build:binary` makes it (CI does, before the tests)' },
  }, async () => {
    check(await stateAtRequests([BINARY]));
  });
});

describe('metrics counted before prom-client is loaded', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ webhooks: { runner: false } });
  });
  afterAll(() => server.stop());

  it('appear, in full, at the first scrape', async () => {
    const metrics = new Metrics(server.ctx.db, server.dbPath);
    metrics.award();
    metrics.award();
    metrics.delivery('dead');
    metrics.batch(3);
    const text = await (await metrics.registry()).metrics();
    expect(text).toMatch(/^punchcard_awards_total 2$/m);
    expect(text).toMatch(/^punchcard_webhook_deliveries_total\{outcome="dead"\} 1$/m);
    expect(text).toMatch(/^punchcard_group_commit_batch_size_count 1$/m);
    expect(text).toMatch(/^punchcard_group_commit_batch_size_sum 3$/m);
  });
});
