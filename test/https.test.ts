// `punchcard serve --https`: the real command, answering over TLS with the self-signed certificate
// it keeps beside the database, and printing how to trust it.
import { spawn } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BIN } from './helpers/cli.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

const folder = mkdtempSync(join(tmpdir(), 'punchcard-https-'));
const db = join(folder, 'punchcard.db');
const certFile = join(folder, 'punchcard-localhost.crt');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** Starts `serve --https --port 0`, resolves with its URL and what it printed, and a stop(). */
function serveHttps(): Promise<{ url: string; printed: string; stop: () => Promise<unknown> }> {
  const child = spawn(process.execPath, [BIN, '--db', db, 'serve', '--port', '0', '--https', '--log-level', 'silent'],
    { env: { ...process.env, PUNCHCARD_MASTER_KEY: TEST_MASTER_KEY } });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  let printed = '';
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      printed += chunk.toString();
      const url = /^Punchcard listening on (https:\/\/\S+)/m.exec(printed)?.[1];
      // The whole banner comes in one write: wait for its last line.
      if (url && printed.includes('curl --cacert')) resolve({ url, printed, stop: () => { child.kill('SIGTERM'); return exited; } });
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', () => reject(new Error(`serve --https exited: ${printed}`)));
  });
}

/** GET over TLS without trusting the certificate (it is self-signed): the status and the certificate the server showed. */
function get(url: string): Promise<{ status: number; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { rejectUnauthorized: false }, (res) => {
      res.resume();
      const socket = res.socket as import('node:tls').TLSSocket;
      res.once('end', () => resolve({ status: res.statusCode ?? 0, fingerprint: socket.getPeerX509Certificate()?.fingerprint256 ?? '' }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('serve --https', { timeout: 60_000 }, () => {
  it('answers over HTTPS with a certificate for localhost kept beside the database, and says how to trust it', async () => {
    const first = await serveHttps();
    expect(first.url).toMatch(/^https:\/\/(127\.0\.0\.1|localhost):\d+$/);
    expect(first.printed).toContain(certFile);
    const answer = await get(`${first.url}/`);
    expect(answer.status).toBe(200);
    const saved = new X509Certificate(readFileSync(certFile));
    expect(answer.fingerprint).toBe(saved.fingerprint256);
    expect(saved.checkHost('localhost')).toBe('localhost');
    expect(saved.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(statSync(join(folder, 'punchcard-localhost.key')).mode & 0o777).toBe(0o600);
    await first.stop();

    // A second start serves the same certificate, so trusting it once is enough.
    const second = await serveHttps();
    expect((await get(`${second.url}/api/v1/members`)).fingerprint).toBe(saved.fingerprint256);
    await second.stop();
  });
});
