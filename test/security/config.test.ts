import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../helpers/http.ts';
import { punchcard, secretsFile, spawnServer } from '../helpers/cli.ts';

/**
 * Configuration as an attacker (or a typo) meets it: environment values that must not switch a
 * safety off, and secrets that must not land in a log because stdout is not a terminal.
 */
let dir: string;
let n = 0;
const freshDb = () => join(dir, `config-${++n}.db`);
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'punchcard-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SECRET = /sk_live_\w{32}|whsk_\w{32}/; // a whole key; tables show a 12-character prefix

async function withServer<T>(env: NodeJS.ProcessEnv, work: (api: ReturnType<typeof client>) => Promise<T>): Promise<T> {
  const server = await spawnServer(freshDb(), [], env);
  try {
    return await work(client(server.url, /secret key\s+(sk_live_\w+)/.exec(server.output())![1]));
  } finally {
    server.child.kill('SIGTERM');
    await new Promise((resolve) => server.child.once('exit', resolve));
  }
}

// Plain http to loopback is what insecure mode allows, and nothing else does.
const registerLoopback = (api: ReturnType<typeof client>) => api.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['points.awarded'] });

describe('boolean settings from the environment', () => {
  it.each(['false', '0', 'no', 'FALSE', 'No', ''])('PUNCHCARD_ALLOW_INSECURE_WEBHOOKS=%j leaves insecure webhooks off', async (value) => {
    const res = await withServer({ PUNCHCARD_ALLOW_INSECURE_WEBHOOKS: value }, registerLoopback);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/https/);
  });

  it.each(['true', 'YES', '1'])('PUNCHCARD_ALLOW_INSECURE_WEBHOOKS=%j turns them on', async (value) => {
    expect((await withServer({ PUNCHCARD_ALLOW_INSECURE_WEBHOOKS: value }, registerLoopback)).status).toBe(201);
  });
});

describe('an unparsable setting stops start-up, naming it', () => {
  it.each([
    ['PUNCHCARD_ALLOW_INSECURE_WEBHOOKS', 'off please', /must be one of true, false, 1, 0, yes, no/],
    ['PUNCHCARD_PORT', '80a', /must be a port number/],
    ['PUNCHCARD_PORT', '70000', /must be a port number/],
    ['PUNCHCARD_WEBHOOK_RETENTION', 'forever', /is not a duration/],
    ['PUNCHCARD_REPLICATE_INTERVAL', '1', /is not a duration/],
    ['PUNCHCARD_SYNCHRONOUS', 'fast', /must be one of full, normal/],
    ['PUNCHCARD_LOG', 'verbose', /must be one of info, error, silent/],
    ['PUNCHCARD_PUBLIC_URL', 'loyalty.example.com', /must be an absolute URL/],
    ['PUNCHCARD_TRUSTED_PROXY', '127.0.0.1, proxy.internal', /must be comma-separated IP addresses \("proxy.internal" is not one\)/],
  ])('%s=%j', (variable, value, message) => {
    const db = freshDb();
    const result = punchcard(['serve', '--db', db, '--port', '0'].filter((arg) => variable !== 'PUNCHCARD_PORT' || !['--port', '0'].includes(arg)), { [variable]: value });
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(new RegExp(`^punchcard: ${variable} \\(--[a-z-]+\\): `));
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(db)).toBe(false); // nothing started
  });

  it('names the flag when the value came as a flag', () => {
    const result = punchcard(['serve', '--db', freshDb(), '--port', 'http']);
    expect(result).toMatchObject({ status: 1, stderr: 'punchcard: --port: must be a port number from 0 to 65535, 0 picking a free one (got "http")\n' });
  });

  it('names PUNCHCARD_MASTER_KEY without echoing it', () => {
    const db = freshDb();
    const result = punchcard(['serve', '--db', db, '--port', '0'], { PUNCHCARD_MASTER_KEY: 'hunter2-not-a-key' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/^punchcard: PUNCHCARD_MASTER_KEY must hold a 32-byte key/);
    expect(result.stderr).not.toContain('hunter2');
    expect(existsSync(db)).toBe(false);
  });

  it('does not echo a replica URL that carries a password', () => {
    const result = punchcard(['serve', '--db', freshDb(), '--port', '0'], { PUNCHCARD_REPLICATE_URL: 'sftp://user:s3cret@ host/path' });
    expect(result.status).toBe(1);
    expect(result.stderr).toMatch(/PUNCHCARD_REPLICATE_URL \(--replicate\): must be an absolute URL/);
    expect(result.stderr).not.toContain('s3cret');
  });
});

describe('secrets never go to a stdout that is not a terminal', () => {
  const expectSecretFile = (printed: string) => {
    const file = secretsFile(printed);
    expect(file).not.toBeNull();
    expect(statSync(file!).mode & 0o777).toBe(0o600);
    return readFileSync(file!, 'utf8');
  };

  it('projects create writes the secret key and widget secret to a new 0600 file and says where', () => {
    const db = freshDb();
    const result = punchcard(['--db', db, 'projects', 'create', '--name', 'Piped']);
    expect(result.status).toBe(0);
    expect(`${result.stdout}${result.stderr}`).not.toMatch(SECRET);
    expect(result.stdout).toMatch(/pk_live_/); // the publishable key is public
    const secrets = expectSecretFile(result.stdout);
    expect(secrets).toMatch(/^secret key\s+sk_live_\w{32}$/m);
    expect(secrets).toMatch(/^widget secret\s+whsk_\w{32}$/m);
    // --json is the caller asking for them on stdout.
    expect(JSON.parse(punchcard(['--db', db, 'projects', 'create', '--name', 'Json', '--json']).stdout).secretKey).toMatch(/^sk_live_/);
  });

  it('rotate-widget-secret and keys create keep theirs off stdout too', () => {
    const db = freshDb();
    const projectId = JSON.parse(punchcard(['--db', db, 'projects', 'create', '--name', 'Rotating', '--json']).stdout).project.id;
    const rotated = punchcard(['--db', db, 'projects', 'rotate-widget-secret', projectId]);
    expect(rotated.stdout).not.toMatch(SECRET);
    expect(expectSecretFile(rotated.stdout)).toMatch(/^widget secret\s+whsk_/m);
    const key = punchcard(['--db', db, 'keys', 'create', '--project', projectId, '--type', 'secret']);
    expect(key.stdout).not.toMatch(SECRET);
    expect(expectSecretFile(key.stdout)).toMatch(/^key\s+sk_live_/m);
  });

  it("the server's first start (stdout in the journal) prints the file's path, not the keys", async () => {
    const server = await spawnServer(freshDb());
    try {
      expect(server.printed()).not.toMatch(SECRET);
      expect(server.printed()).toMatch(/Bearer \$SECRET_KEY/);
      const secretKey = /secret key\s+(sk_live_\w+)/.exec(expectSecretFile(server.printed()))![1];
      expect((await client(server.url, secretKey).post('/api/v1/members', { externalId: 'from-file' })).status).toBe(201);
    } finally {
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
    }
  });
});
