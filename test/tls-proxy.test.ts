import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWidgetAuth } from '../sdk/widget-auth.ts';
import { BIN, punchcard, secretsFile } from './helpers/cli.ts';
import { onlyBlock, readEnvironmentFile } from './helpers/docs.ts';
import { client } from './helpers/http.ts';
import { TEST_MASTER_KEY } from './helpers/server.ts';

// The TLS fronts of docs/production.md, as written there, in front of a server started with the
// environment file of the same page (read as systemd reads it):
// - Debian's Caddy with the page's Caddyfile, given `tls internal` (a certificate from Caddy's own
//   CA: Let's Encrypt needs a public name, which a test machine has not), its storage in a scratch
//   folder, its admin endpoint off, on free ports. The widget then runs through it on an https://
//   shop page in Chromium, which trusts Caddy's CA because the test imports its root into the
//   browser's certificate database (NSS, $HOME/.pki/nssdb): no --ignore-certificate-errors, so a
//   certificate from any other CA would still be refused.
// - Debian's nginx with the page's configuration and a self-signed certificate: `nginx -t`, then
//   requests through it.
// Through both, two clients have their own rate limits, and a made-up X-Forwarded-For escapes none.

const CADDY = '/usr/bin/caddy';
const NGINX = '/usr/sbin/nginx';
const missing = [CADDY, NGINX, '/usr/bin/certutil', '/usr/bin/openssl', '/usr/bin/chromium'].filter((path) => !existsSync(path));
if (missing.length > 0 && process.env.CI) throw new Error(`${missing.join(', ')} missing: apt-get install caddy nginx libnss3-tools openssl chromium (.ci/run does)`);

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const ARTIFACTS = join(import.meta.dirname, '..', 'test-artifacts');
/** Wrong keys a client may send per hour before a 429: low, so a test reaches it in a few requests. */
const AUTH_FAILURES = 3;

let dir: string;
let upstream: string;
/** Caddy's HTTPS port: the server's public URL names it. */
let caddyPort: number;
let keys: { projectId: string; secretKey: string; publishableKey: string; widgetSecret: string };
const children: ChildProcess[] = [];

const freePort = () => new Promise<number>((resolve, reject) => {
  const probe = createServer();
  probe.once('error', reject);
  probe.listen(0, '127.0.0.1', () => {
    const { port } = probe.address() as AddressInfo;
    probe.close(() => resolve(port));
  });
});

/**
 * Starts a program; `until(pattern)` resolves once what it printed matches (and fails, with that
 * output, if it exits first).
 */
function start(file: string, args: string[], env: NodeJS.ProcessEnv): { output: () => string; until: (pattern: RegExp) => Promise<void> } {
  const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of [...waiters]) check();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`${file} exited with ${code}:\n${output}`))));
  exited.catch(() => undefined);
  const until = (pattern: RegExp) => Promise.race([exited, new Promise<void>((resolve) => {
    const check = () => {
      if (!pattern.test(output)) return;
      waiters.delete(check);
      resolve();
    };
    waiters.add(check);
    check();
  })]);
  return { output: () => output, until };
}

/**
 * An HTTPS request to `name` (as DNS would resolve it, 127.0.0.1) on `port`, trusting `ca`, sent
 * from the loopback address `from`: another address per client, as shoppers on the internet have.
 */
function httpsGet(name: string, port: number, path: string, options: { ca: string; from: string; headers?: Record<string, string> }):
  Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({
      host: '127.0.0.1', port, path, servername: name, ca: options.ca, localAddress: options.from, agent: false,
      headers: { host: `${name}:${port}`, ...options.headers },
    }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => { body += chunk.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Two clients behind the proxy have their own auth-failure limits; a made-up X-Forwarded-For changes nothing. */
async function checkClientAddresses(name: string, port: number, ca: string, first: string, second: string): Promise<void> {
  const wrongKey = { authorization: 'Bearer sk_live_wrongwrongwrongwrongwrongwrongwr' };
  for (let i = 0; i < AUTH_FAILURES; i++) expect((await httpsGet(name, port, '/api/v1/members', { ca, from: first, headers: wrongKey })).status).toBe(401);
  expect((await httpsGet(name, port, '/api/v1/members', { ca, from: first, headers: wrongKey })).status).toBe(429);
  // The same client claiming to be someone else is still itself.
  const forged = await httpsGet(name, port, '/api/v1/members', { ca, from: first, headers: { ...wrongKey, 'x-forwarded-for': '203.0.113.9' } });
  expect(forged.status).toBe(429);
  // Another shopper behind the same proxy is not held back by the first.
  expect((await httpsGet(name, port, '/api/v1/members', { ca, from: second, headers: wrongKey })).status).toBe(401);
}

describe.skipIf(missing.length > 0)('docs/production.md\'s TLS fronts', {
  timeout: 90_000,
  meta: missing.length > 0 ? { skipReason: `needs ${missing.join(', ')}: apt-get install caddy nginx libnss3-tools openssl chromium (.ci/run does)` } : {},
}, () => {
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'punchcard-tls-'));
    // The server, started with production.md's environment file: its database and public URL here,
    // the master key filled in, no replication (the page says to leave it out until you replicate),
    // a free port, and a low auth-failure limit for the address checks.
    caddyPort = await freePort();
    const env = readEnvironmentFile(onlyBlock('docs/production.md', 'dotenv').text
      .replace('/var/lib/punchcard/', `${dir}/`)
      .replace('https://loyalty.example.com', `https://loyalty.example.com:${caddyPort}`)
      .replace('PUNCHCARD_MASTER_KEY=…', `PUNCHCARD_MASTER_KEY=${TEST_MASTER_KEY}`));
    for (const name of ['PUNCHCARD_REPLICATE_URL', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY', 'AWS_REGION']) delete env[name];
    expect(env).toMatchObject({ PUNCHCARD_HOST: '127.0.0.1', PUNCHCARD_TRUSTED_PROXY: '127.0.0.1' });
    const serverEnv = { PATH: process.env.PATH, ...env, PUNCHCARD_PORT: '0', PUNCHCARD_RATE_LIMIT_AUTH_FAILURES: `${AUTH_FAILURES}/h` };
    const started = start(process.execPath, [BIN, 'serve'], serverEnv);
    await started.until(/written to \S+\.secrets\.txt/);
    upstream = /^Punchcard listening on http:\/\/(\S+)/m.exec(started.output())![1]!;
    const secrets = readFileSync(secretsFile(started.output())!, 'utf8');
    keys = {
      projectId: /(prj_\w+)-[^/]*\.secrets\.txt/.exec(started.output())![1]!,
      secretKey: /^secret key\s+(\S+)$/m.exec(secrets)![1]!,
      publishableKey: /publishable key\s+(pk_live_\w+)/.exec(started.output())![1]!,
      widgetSecret: /^widget secret\s+(\S+)$/m.exec(secrets)![1]!,
    };
  });

  afterAll(async () => {
    for (const child of children) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  it('Caddy: serves the API over TLS with X-Forwarded-For believed, and the widget works through it on an https shop page', async () => {
    const httpsPort = caddyPort;
    const httpPort = await freePort();
    const caddyDir = join(dir, 'caddy');
    const shopDir = join(dir, 'shop');
    mkdirSync(caddyDir);
    mkdirSync(shopDir);
    // The page's Caddyfile as written, with `tls internal` and this server's port; a second site, the shop.
    const site = onlyBlock('docs/production.md', 'caddyfile').text;
    expect(site).toContain('reverse_proxy 127.0.0.1:3000');
    const caddyfile = `{
	admin off
	storage file_system ${caddyDir}
	skip_install_trust
	http_port ${httpPort}
	https_port ${httpsPort}
	auto_https disable_redirects
}
${site.replace('127.0.0.1:3000', upstream).replace(/\{\n/, '{\n\ttls internal\n')}
shop.example {
	tls internal
	root * ${shopDir}
	file_server
}
`;
    writeFileSync(join(dir, 'Caddyfile'), caddyfile);
    const caddyEnv = { PATH: process.env.PATH, HOME: dir, XDG_DATA_HOME: join(dir, 'xdg-data'), XDG_CONFIG_HOME: join(dir, 'xdg-config') };
    const caddy = start(CADDY, ['run', '--config', join(dir, 'Caddyfile'), '--adapter', 'caddyfile'], caddyEnv);
    // Caddy's own CA makes the sites' certificates once it runs; its root is what a browser must trust.
    for (const name of ['loyalty.example.com', 'shop.example']) await caddy.until(new RegExp(`certificate obtained successfully","identifier":"${name.replaceAll('.', '\\.')}"`));
    const root = join(caddyDir, 'pki/authorities/local/root.crt');
    const ca = readFileSync(root, 'utf8');

    const health = await httpsGet('loyalty.example.com', httpsPort, '/healthz', { ca, from: '127.0.0.1' });
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok' });
    await checkClientAddresses('loyalty.example.com', httpsPort, ca, '127.0.0.5', '127.0.0.6');

    // The shop: its origin allowed, a member with points, a page signing the member as a shop's server would.
    const api = `https://loyalty.example.com:${httpsPort}`;
    const shop = `https://shop.example:${httpsPort}`;
    expect(punchcard(['project', 'set', '--project', keys.projectId, '--allow-origin', shop], { PUNCHCARD_DB: join(dir, 'punchcard.db') }).status).toBe(0);
    const direct = client(`http://${upstream}`, keys.secretKey);
    expect((await direct.post('/api/v1/members', { externalId: 'ada', name: 'Ada' })).status).toBe(201);
    expect((await direct.post('/api/v1/members/ada/points', { amount: 250, description: 'Welcome' })).status).toBe(200);
    const claims = JSON.parse(Buffer.from(signWidgetAuth({ publishableKey: keys.publishableKey, widgetSecret: keys.widgetSecret, externalId: 'ada' }), 'base64').toString('utf8'));
    writeFileSync(join(shopDir, 'index.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Shop</title></head><body>
<h1>A shop</h1>
<script src="${api}/widget.js"></script>
<script>
Punchcard.init(Object.assign(${JSON.stringify(claims)}, {
  onReady: function () { document.body.setAttribute('data-ready', '1'); },
  onError: function (error) { document.body.setAttribute('data-error', error.message); }
}));
</script></body></html>`);

    // Chromium trusts Caddy's CA from its NSS database, as a machine that imported it would.
    const home = join(dir, 'browser-home');
    const nssdb = join(home, '.pki/nssdb');
    mkdirSync(nssdb, { recursive: true });
    execFileSync('/usr/bin/certutil', ['-N', '-d', `sql:${nssdb}`, '--empty-password']);
    execFileSync('/usr/bin/certutil', ['-A', '-d', `sql:${nssdb}`, '-n', 'Caddy Local Authority', '-t', 'C,,', '-i', root]);
    let browser: BrowserContext | undefined;
    try {
      browser = await chromium.launchPersistentContext(join(dir, 'profile'), {
        executablePath: '/usr/bin/chromium', headless: true, env: { ...process.env, HOME: home },
        args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP loyalty.example.com 127.0.0.1, MAP shop.example 127.0.0.1'],
      });
      const page = browser.pages()[0] ?? await browser.newPage();
      const errors: string[] = [];
      page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
      page.on('pageerror', (error) => errors.push(error.message));
      const answered: string[] = [];
      page.on('response', (response) => { if (response.url().startsWith(api)) answered.push(`${response.status()} ${new URL(response.url()).pathname}`); });
      const response = await page.goto(`${shop}/`);
      expect(response!.status()).toBe(200);
      expect((await response!.securityDetails())?.issuer).toMatch(/Caddy Local Authority/);
      await page.waitForSelector('body[data-ready]', { timeout: 30_000 });
      expect(await page.getAttribute('body', 'data-error')).toBeNull();
      expect(answered).toEqual(expect.arrayContaining(['200 /widget.js', '200 /api/widget/init']));
      // The shopper opens the widget and sees their points, all of it through the proxy.
      await page.locator('[data-punchcard] .launcher').click();
      await expect.poll(async () => page.getByRole('dialog').textContent(), { timeout: 20_000 }).toContain('250');
      expect(errors).toEqual([]);
      mkdirSync(ARTIFACTS, { recursive: true });
      // The drawer's opening animation, awaited rather than slept through, before the picture.
      await page.evaluate(() => Promise.all(document.querySelector('[data-punchcard]')!.shadowRoot!.getAnimations().map((animation) => animation.finished)));
      await page.screenshot({ path: join(ARTIFACTS, 'tls-proxy-widget.png') });
    } finally {
      await browser?.close();
    }
  });

  it('nginx: the configuration passes nginx -t, and serves the API through it with X-Forwarded-For believed', async () => {
    const httpsPort = await freePort();
    const httpPort = await freePort();
    const nginxDir = join(dir, 'nginx');
    mkdirSync(join(nginxDir, 'logs'), { recursive: true });
    // A self-signed certificate for the name, where certbot's would be.
    execFileSync('/usr/bin/openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=loyalty.example.com',
      '-addext', 'subjectAltName=DNS:loyalty.example.com', '-keyout', join(nginxDir, 'privkey.pem'), '-out', join(nginxDir, 'fullchain.pem')], { stdio: 'ignore' });
    // The page's server blocks as written, with this machine's ports and files; IPv6 listens left out (a test container may have no IPv6).
    const servers = onlyBlock('docs/production.md', 'nginx').text
      .replaceAll('/etc/letsencrypt/live/loyalty.example.com/', `${nginxDir}/`)
      .replace('127.0.0.1:3000', upstream)
      .replace(/^\s*listen \[::\]:.*\n/gm, '')
      .replace('listen 443 ssl http2;', `listen 127.0.0.1:${httpsPort} ssl http2;`)
      .replace('listen 80;', `listen 127.0.0.1:${httpPort};`);
    expect(servers).toContain('proxy_set_header X-Forwarded-For $remote_addr;');
    const conf = join(nginxDir, 'nginx.conf');
    writeFileSync(conf, `pid ${nginxDir}/nginx.pid;
error_log ${nginxDir}/logs/error.log;
events {}
http {
    access_log off;
    client_body_temp_path ${nginxDir}/body;
    proxy_temp_path ${nginxDir}/proxy;
    fastcgi_temp_path ${nginxDir}/fastcgi;
    uwsgi_temp_path ${nginxDir}/uwsgi;
    scgi_temp_path ${nginxDir}/scgi;
${servers}
}
`);
    const args = ['-p', nginxDir, '-c', conf, '-e', join(nginxDir, 'logs/error.log')];
    const checked = spawnSync(NGINX, [...args, '-t'], { encoding: 'utf8' });
    expect(checked.stderr).toMatch(/syntax is ok[\s\S]*test is successful/);
    expect(checked.stderr).not.toMatch(/\[(warn|emerg|alert|crit)\]/);
    expect(checked.status).toBe(0);
    // nginx says nothing when it is up: the requests below wait for it.
    children.push(spawn(NGINX, [...args, '-g', 'daemon off;'], { stdio: 'ignore' }));
    const ca = readFileSync(join(nginxDir, 'fullchain.pem'), 'utf8');
    await expect.poll(async () => (await httpsGet('loyalty.example.com', httpsPort, '/healthz', { ca, from: '127.0.0.1' }).catch(() => ({ status: 0 }))).status,
      { timeout: 20_000 }).toBe(200);
    // The port-80 server sends browsers to https.
    const redirect = await new Promise<{ status: number; location: string }>((resolve, reject) => {
      import('node:http').then(({ request }) => request({ host: '127.0.0.1', port: httpPort, path: '/widget.js', headers: { host: 'loyalty.example.com' } }, (res) => {
        res.resume();
        resolve({ status: res.statusCode ?? 0, location: String(res.headers.location) });
      }).on('error', reject).end(), reject);
    });
    expect(redirect).toEqual({ status: 301, location: 'https://loyalty.example.com/widget.js' });
    await checkClientAddresses('loyalty.example.com', httpsPort, ca, '127.0.0.7', '127.0.0.8');
  });
});
