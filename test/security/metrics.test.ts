import { readFileSync, rmSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/shared/secrets.ts';
import { punchcard, secretsFile } from '../helpers/cli.ts';
import { client, request } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * /metrics reports the whole server (every project's traffic, the database's size), so a
 * project's secret key must not read it: one tenant would see the others. It has its own token,
 * made by `punchcard metrics token`, stored hashed, shown once.
 */

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

const metrics = (key?: string) => client(server.url, key).get('/metrics');

describe('the metrics token', () => {
  it('no project key reads /metrics; without a token it is off', async () => {
    const other = server.addProject('Another tenant');
    for (const key of [undefined, server.secretKey, other.secretKey]) expect((await metrics(key)).status, String(key)).toBe(404);
  });

  it('`punchcard metrics token` makes one (shown once, into a 0600 file off a terminal, stored hashed) that the running server takes at once', async () => {
    const made = punchcard(['metrics', 'token', '--db', server.dbPath]);
    expect(made.status, made.stderr).toBe(0);
    const file = secretsFile(made.stdout);
    expect(file).not.toBeNull();
    expect(made.stdout).not.toMatch(/pcm_\w{32}/);
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    const token = /pcm_\w{32}/.exec(readFileSync(file!, 'utf8'))![0];
    rmSync(file!);
    const stored = server.ctx.db.prepare("SELECT value FROM meta WHERE key = 'metrics_token_sha256'").pluck().get();
    expect(stored).toBe(sha256Hex(token));

    expect((await metrics(token)).status).toBe(200);
    const refused = await metrics(server.secretKey);
    expect(refused.status).toBe(401);
    expect(refused.body.message).toMatch(/secret key does not read \/metrics/);
    expect((await request(server.url, 'GET', '/metrics')).status).toBe(401);
  });

  it('rotating replaces the token at once; --revoke turns /metrics off; --metrics-token still works beside it', async () => {
    const first = JSON.parse(punchcard(['metrics', 'token', '--db', server.dbPath, '--json']).stdout) as { token: string; replaced: boolean };
    const second = JSON.parse(punchcard(['metrics', 'token', '--db', server.dbPath, '--json']).stdout) as { token: string; replaced: boolean };
    expect(second.replaced).toBe(true);
    expect((await metrics(first.token)).status).toBe(401);
    expect((await metrics(second.token)).status).toBe(200);

    server.ctx.metricsToken = 'pcm_from-the-command-line-0123456789';
    try {
      expect((await metrics('pcm_from-the-command-line-0123456789')).status).toBe(200);
      expect((await metrics(second.token)).status).toBe(200);
      expect(JSON.parse(punchcard(['metrics', 'token', '--db', server.dbPath, '--revoke', '--json']).stdout)).toEqual({ revoked: true });
      expect((await metrics(second.token)).status).toBe(401);
    } finally {
      server.ctx.metricsToken = undefined;
    }
    expect((await metrics(second.token)).status).toBe(404);
  });
});
