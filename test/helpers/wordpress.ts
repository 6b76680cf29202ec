// Real WordPress from Debian's `wordpress` package, for the plugin's test: a private MariaDB
// (own datadir and socket in a temp folder, no network), a copy of WordPress with its own
// wp-config.php, WooCommerce's shim as a must-use plugin, the plugin from its zip, served by
// `php -S` on 127.0.0.1. Install: apt-get install wordpress php-cli mariadb-server.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/wordpress');
const WORDPRESS = '/usr/share/wordpress';
const MARIADBD = '/usr/sbin/mariadbd';

/** What the test needs from the machine; empty when all of it is there. */
export function missingWordPressTools(): string[] {
  const missing: string[] = [];
  if (!existsSync(`${WORDPRESS}/wp-settings.php`)) missing.push('wordpress');
  if (!existsSync(MARIADBD) || !existsSync('/usr/bin/mariadb-install-db')) missing.push('mariadb-server');
  try {
    execFileSync('php', ['-r', 'exit(function_exists("mysqli_connect") ? 0 : 1);']);
  } catch {
    missing.push('php-cli (with php-mysql)');
  }
  return missing;
}

const freePort = () => new Promise<number>((resolve, reject) => {
  const server = createServer();
  server.once('error', reject);
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
  });
});

/** Starts a process and resolves once a line of its output matches (the process says it is ready). */
function startUntil(command: string, args: string[], ready: RegExp, log: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) {
  // Its own process group, so stopping it stops the workers `php -S` forks too.
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  return new Promise<ChildProcess>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      log.push(text);
      if (ready.test(text)) resolve(child);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${command} exited with ${code} before it was ready:\n${log.join('').slice(-3000)}`)));
  });
}

const stopProcess = (child: ChildProcess) => new Promise<void>((resolve) => {
  if (child.exitCode !== null || child.signalCode !== null) return resolve();
  child.once('exit', () => resolve());
  try {
    process.kill(-child.pid!, 'SIGTERM');
  } catch {
    child.kill('SIGTERM');
  }
});

export interface WordPressSite {
  url: string;
  dir: string;
  users: { admin: number; editor: number; customer: number };
  accountPage: number;
  /** Runs SQL in the site's database and answers the rows, tab-separated. */
  sql(query: string): string[][];
  /** The PHP errors and warnings logged by WordPress (WP_DEBUG_LOG). */
  debugLog(): string;
  stop(): Promise<void>;
}

export async function startWordPress(pluginZip: Uint8Array): Promise<WordPressSite> {
  const dir = mkdtempSync(join(tmpdir(), 'punchcard-wp-'));
  const log: string[] = [];
  const processes: ChildProcess[] = [];
  const stop = async () => {
    for (const child of processes.reverse()) await stopProcess(child);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    // MariaDB, private to this test.
    const data = join(dir, 'mysql');
    const socket = join(dir, 'mysql.sock');
    mkdirSync(data);
    execFileSync('mariadb-install-db', ['--no-defaults', `--datadir=${data}`, '--auth-root-authentication-method=normal', '--skip-test-db', '--user=root'],
      { stdio: 'pipe' });
    processes.push(await startUntil(MARIADBD, ['--no-defaults', `--datadir=${data}`, `--socket=${socket}`, '--skip-networking',
      `--pid-file=${join(dir, 'mysql.pid')}`, '--user=root', '--innodb-buffer-pool-size=16M', '--skip-log-bin'], /ready for connections/, log));

    // WordPress: Debian's copy reads its configuration from /etc/wordpress; this one has its own.
    const root = join(dir, 'wordpress');
    cpSync(WORDPRESS, root, { recursive: true, verbatimSymlinks: true,
      filter: (source) => source !== `${WORDPRESS}/wp-config.php` && source !== `${WORDPRESS}/wp-content` });
    const content = join(root, 'wp-content');
    mkdirSync(join(content, 'plugins'), { recursive: true });
    mkdirSync(join(content, 'mu-plugins'));
    cpSync(join(FIXTURES, 'woocommerce-shim.php'), join(content, 'mu-plugins/woocommerce-shim.php'));
    cpSync(join(FIXTURES, 'theme'), join(content, 'themes/punchcard-test-theme'), { recursive: true });
    // The plugin as a shop owner installs it: unpacked from the zip.
    for (const [name, bytes] of Object.entries(unzipSync(pluginZip))) {
      const path = join(content, 'plugins', name);
      mkdirSync(dirname(path), { recursive: true });
      writeFileSync(path, bytes);
    }
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const salts = ['AUTH_KEY', 'SECURE_AUTH_KEY', 'LOGGED_IN_KEY', 'NONCE_KEY', 'AUTH_SALT', 'SECURE_AUTH_SALT', 'LOGGED_IN_SALT', 'NONCE_SALT']
      .map((name) => `define('${name}', '${randomBytes(24).toString('hex')}');`).join('\n');
    writeFileSync(join(root, 'wp-config-db.php'), `<?php
define('DB_NAME', 'wordpress');
define('DB_USER', 'root');
define('DB_PASSWORD', '');
define('DB_HOST', 'localhost:${socket}');
`);
    writeFileSync(join(root, 'wp-config.php'), `<?php
require_once __DIR__ . '/wp-config-db.php';
define('DB_CHARSET', 'utf8mb4');
define('DB_COLLATE', '');
${salts}
$table_prefix = 'wp_';
define('WP_HOME', '${url}');
define('WP_SITEURL', '${url}');
define('WP_CONTENT_DIR', __DIR__ . '/wp-content');
define('WP_DEBUG', true);
define('WP_DEBUG_LOG', __DIR__ . '/debug.log');
define('WP_DEBUG_DISPLAY', false);
// One php -S process answers one request at a time: no loopback cron, no calls to wordpress.org.
define('DISABLE_WP_CRON', true);
define('WP_HTTP_BLOCK_EXTERNAL', true);
define('AUTOMATIC_UPDATER_DISABLED', true);
if (!defined('ABSPATH')) define('ABSPATH', __DIR__ . '/');
require_once ABSPATH . 'wp-settings.php';
`);
    const installed = JSON.parse(execFileSync('php', [join(FIXTURES, 'setup.php'), root], { encoding: 'utf8', env: { ...process.env, HTTP_HOST: `127.0.0.1:${port}` } }));
    // Several workers: while the plugin's request waits on Punchcard, Punchcard calls the store's REST API back.
    processes.push(await startUntil('php', ['-S', `127.0.0.1:${port}`, '-t', root], /Development Server .* started/, log,
      { cwd: root, env: { ...process.env, PHP_CLI_SERVER_WORKERS: '4' } }));

    const sql = (query: string) => execFileSync('mariadb', ['--no-defaults', `--socket=${socket}`, '-u', 'root', '-N', '-B', '--raw', '-e', query, 'wordpress'], { encoding: 'utf8' })
      .split('\n').filter((line) => line !== '').map((line) => line.split('\t'));
    const debugLog = () => existsSync(join(root, 'debug.log')) ? readFileSync(join(root, 'debug.log'), 'utf8') : '';
    return { url, dir, users: installed.users, accountPage: installed.accountPage, sql, debugLog, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A browser's session on the site: signs in through wp-login.php and keeps the cookies. */
export class WordPressBrowser {
  private cookies = new Map<string, string>([['wordpress_test_cookie', 'WP%20Cookie%20check']]);
  constructor(private readonly site: WordPressSite) {}

  private remember(response: Response) {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (value === 'deleted' || /expires=Thu, 01-Jan-1970/i.test(line) || /Max-Age=0\b/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  /** One request; redirects are followed (as GET), so the answer is the page the browser ends on. */
  async request(method: 'GET' | 'POST', path: string, form?: Record<string, string>): Promise<{ status: number; url: string; html: string }> {
    let url = new URL(path, this.site.url).toString();
    let init: RequestInit = { method, body: form ? new URLSearchParams(form).toString() : undefined };
    for (let hops = 0; hops < 5; hops += 1) {
      const headers: Record<string, string> = { cookie: [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ') };
      if (init.body) headers['content-type'] = 'application/x-www-form-urlencoded';
      const response = await fetch(url, { ...init, headers, redirect: 'manual' });
      this.remember(response);
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        url = new URL(location, url).toString();
        init = { method: 'GET' };
        continue;
      }
      return { status: response.status, url, html: await response.text() };
    }
    throw new Error(`Too many redirects from ${path}`);
  }

  get(path: string) {
    return this.request('GET', path);
  }

  post(path: string, form: Record<string, string>) {
    return this.request('POST', path, form);
  }

  async signIn(login: string, password: string): Promise<void> {
    const answer = await this.post('/wp-login.php', { log: login, pwd: password, 'wp-submit': 'Log In', testcookie: '1', redirect_to: `${this.site.url}/` });
    if (![...this.cookies.keys()].some((name) => name.startsWith('wordpress_logged_in_'))) {
      throw new Error(`Signing in as ${login} failed (HTTP ${answer.status}): ${answer.html.slice(0, 500)}`);
    }
  }
}
