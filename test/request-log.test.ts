import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { spawnServer } from './helpers/cli.ts';
import { client, request } from './helpers/http.ts';

const dir = mkdtempSync(join(tmpdir(), 'punchcard-request-log-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Starts `serve` with request lines on (the tests' default is silent), runs `work`, stops it and returns what it logged. */
async function logged(name: string, args: string[], work: (url: string, key: string) => Promise<unknown>): Promise<string> {
  const server = await spawnServer(join(dir, `${name}.db`), args, { PUNCHCARD_LOG: 'info' });
  const key = /secret key\s+(sk_live_\w+)/.exec(server.output())![1]!;
  try {
    await work(server.url, key);
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
  return server.printed();
}

const SECRET_DESCRIPTION = 'private-note-5f2c';
const WIDGET_AUTH = 'whsk_should_never_be_logged.1234567890.abcdef';

/** Requests that carry every kind of secret: the key, a body, a personal externalId in the path, a widget header, a query. */
async function traffic(url: string, key: string, quiet = false) {
  const api = client(url, key);
  const created = await api.post('/api/v1/members', { externalId: 'alice-private', email: 'alice@example.com' });
  expect(created.status).toBe(201);
  const award = await api.post('/api/v1/members/alice-private/points', { amount: 5, description: SECRET_DESCRIPTION });
  expect(award.status).toBe(200);
  // The id to quote when asking about a request; only where requests are logged, as it names a log line.
  if (quiet) expect(award.headers['x-request-id']).toBeUndefined();
  else expect(award.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  const widget = await request(url, 'GET', '/api/widget/profile?token=query-secret', { headers: { 'x-widget-auth': WIDGET_AUTH } });
  expect(widget.status).toBe(401);
  expect((await request(url, 'GET', '/api/v1/members', { key: 'sk_live_wrongwrongwrongwrongwrongwrong12' })).status).toBe(401);
  expect((await request(url, 'GET', '/no/such/page')).status).toBe(404);
  return award.headers['x-request-id'] as string;
}

describe('request logs', { timeout: 60_000 }, () => {
  it('--log-format json: one JSON line per request with its fields, and never a key, header, query or body', async () => {
    let awardId = '';
    let projectId = '';
    const output = await logged('json', ['--log-format', 'json'], async (url, key) => {
      awardId = await traffic(url, key);
      projectId = (await client(url, key).get('/api/v1/project')).body.id;
    });
    const lines = output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));
    const requests = lines.filter((line) => line.msg === 'request');
    expect(requests.length).toBe(6);
    const award = requests.find((line) => line.requestId === awardId);
    expect(award).toEqual({
      level: 30, time: expect.any(String), msg: 'request', method: 'POST', route: '/api/v1/members/:externalId/points',
      status: 200, durationMs: expect.any(Number), projectId, requestId: awardId,
    });
    expect(requests.map((line) => [line.method, line.route, line.status])).toEqual([
      ['POST', '/api/v1/members', 201],
      ['POST', '/api/v1/members/:externalId/points', 200],
      ['GET', '/api/widget/profile', 401],
      ['GET', '/api/v1/members', 401],
      ['GET', null, 404],
      ['GET', '/api/v1/project', 200],
    ]);
    expect(requests.filter((line) => line.status === 401).every((line) => line.projectId === null)).toBe(true);
    for (const secret of ['sk_live_', WIDGET_AUTH, 'query-secret', SECRET_DESCRIPTION, 'alice-private', 'alice@example.com', '/no/such/page']) {
      expect(output.split('Punchcard listening')[1]!.split('\n').slice(1).join('\n')).not.toContain(secret);
    }
    expect(lines.some((line) => line.msg.startsWith('SIGTERM'))).toBe(true); // messages are JSON too
  });

  it('text format by default, and --quiet leaves request lines out', async () => {
    const text = await logged('text', [], traffic);
    expect(text).toMatch(/^\S+Z POST \/api\/v1\/members\/:externalId\/points 200 [\d.]+ms project=prj_\w+ request=[0-9a-f-]{36}$/m);
    expect(text).toMatch(/^\S+Z GET \(no route\) 404 [\d.]+ms project=- request=/m);
    expect(text).not.toContain(SECRET_DESCRIPTION);
    expect(text).not.toContain(WIDGET_AUTH);
    const quiet = await logged('quiet', ['--quiet'], (url, key) => traffic(url, key, true));
    expect(quiet).not.toMatch(/ms project=/);
    expect(quiet).toContain('SIGTERM');
  });
});
