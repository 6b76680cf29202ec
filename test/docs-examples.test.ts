import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOC_PAGES, fencedBlocks, ROOT, type FencedBlock } from './helpers/docs.ts';
import { startFakeWooCommerce, type FakeWooCommerce } from './helpers/fake-woocommerce.ts';
import { client } from './helpers/http.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';

// Every shell example of README.md and docs/*.md, as a user pastes it. A fenced block of shell
// (```sh, ```bash, ```shell, ```console) is either marked runnable, with `<!-- doc-test: run -->` on
// the line above its fence, or listed below with the reason it cannot run here. A block that is
// neither fails, so an example added later is never silently untested.
//
// Runnable blocks run in page order, one command (a line, with its `\` continuations) at a time,
// through bash, each page in a folder of its own with its own database, against a real server:
// - the page's server is `punchcard serve` started in that folder, as `npm start` starts it (a new
//   database, its "Default" project's keys in a 0600 file); a command `npm start -- ARGS` or
//   `punchcard serve ARGS` restarts it with those arguments. It listens on a free port: the docs'
//   addresses (http://127.0.0.1:3000, https://loyalty.example.com, $U…) are that server's.
// - `punchcard` and `npx punchcard` run the checkout's cli/punchcard.mjs (npx finds that same file
//   in a checkout, at two seconds a call); `curl` fails on an HTTP error (--fail-with-body), so an
//   example answered 4xx fails here as it would for the user.
// - placeholders take what earlier commands printed (or wrote to a secrets file they named):
//   `prj_…`, `sk_live_…`, `key_…`, `whk_…`… the latest id of that kind; $K and $SECRET_KEY the
//   latest secret key, $U the server, $STORE_ID the latest store; PUNCHCARD_MASTER_KEY=… the key of
//   the page's database (the password manager's copy); shell variables and the working folder carry
//   over from one command to the next, as in one terminal.
// - what lies outside this machine is a fake on 127.0.0.1: the webhook receiver of
//   https://hooks.example.com, the WooCommerce store of https://shop.example.com, and a `file://`
//   Litestream replica for s3://my-bucket/punchcard.

const SHELL = new Set(['sh', 'bash', 'shell', 'console']);
const RUN = 'doc-test: run';
/** `<!-- doc-test: run (server stopped) -->`: the page's server is stopped for the block, as its text asks, and started again after. */
const RUN_STOPPED = 'doc-test: run (server stopped)';
const CI = Boolean(process.env.CI);
const BINARY = join(ROOT, 'dist/punchcard');

/** Blocks that cannot run here, by page and first line, and why. */
const BLOCK_EXCEPTIONS: { page: string; first: string; reason: string }[] = [
  { page: 'README.md', first: 'npm ci && npm start', reason: 'installs node_modules and runs the whole suite: CI\'s .ci/run does exactly that, and this test is part of it' },
  { page: 'docs/install.md', first: 'sudo install -d -m 0755 /opt/punchcard', reason: 'installs a system service: needs root and systemd as PID 1 (test/systemd-units.test.ts verifies the unit)' },
  { page: 'docs/install.md', first: 'sudo -u punchcard PUNCHCARD_DB=', reason: 'runs as the service user the block above creates' },
  { page: 'docs/production.md', first: 'systemctl stop punchcard', reason: 'a restore after losing the machine: systemd and an S3 bucket (the drill below restores the same way from a file replica)' },
  { page: 'docs/production.md', first: 'sudo cp docs/punchcard-backup.service', reason: 'installs a systemd timer: needs root and systemd as PID 1 (test/systemd-units.test.ts verifies the units and runs their command)' },
  { page: 'docs/operations.md', first: 'npm version 0.2.0', reason: 'makes a release: commits, tags and pushes to the project\'s repository' },
  { page: 'docs/operations.md', first: 'git clone --branch v0.2.0', reason: 'clones a released tag from the repository\'s address over the network' },
  { page: 'docs/discord.md', first: 'PUNCHCARD_DISCORD_BOT_TOKEN=', reason: 'runs the bot against Discord itself, with a real bot token (test/community-bot.test.ts runs it against a fake gateway)' },
  { page: 'docs/operations.md', first: 'wp db query "SELECT u.ID AS user_id, u.user_email, u.display_name, SUM(', reason: 'reads a WordPress database with wp-cli (test/wordpress-plugin.test.ts imports Points & Rewards balances from such tables)' },
  { page: 'docs/operations.md', first: 'wp db query "SELECT u.ID AS user_id, u.user_email, u.display_name, m.meta_value', reason: 'reads a WordPress database with wp-cli (test/wordpress-plugin.test.ts imports myCred balances from such tables)' },
  { page: 'docs/sdk.md', first: 'npm install /opt/punchcard', reason: 'installs into your own Node project (test/sdk.test.ts imports punchcard/sdk as it does)' },
];

/** Commands inside runnable blocks that cannot run here, and why. */
const COMMAND_EXCEPTIONS: { page: string; command: string; reason: string }[] = [
  { page: 'README.md', command: 'npx punchcard restore --from s3://bucket/punchcard --db ./data/punchcard.db', reason: 'replaces the database from an S3 bucket (docs/production.md\'s drill restores from a replica)' },
  { page: 'docs/install.md', command: 'npm ci', reason: 'reinstalls node_modules: CI\'s .ci/run does, before this test' },
  { page: 'docs/install.md', command: 'npm run build:binary', reason: 'takes minutes: CI\'s .ci/run builds dist/punchcard before the tests, and the next command checks what it built' },
];

/** Files a page's reader brings (the members file `members import` reads). */
const READER_FILES: Record<string, Record<string, string>> = {
  'docs/operations.md': { 'members.csv': 'externalId,email,name,balance\nm-001,ada@example.com,Ada Lovelace,120\nm-002,,Grace Hopper,0\n' },
};

/** The variables the docs assume their reader has set: the server, its latest secret key, the store. */
const RUNNER_VARIABLES = ['U', 'K', 'SECRET_KEY', 'STORE_ID'];

/** Placeholder URLs of the docs, the server's address here. */
const SERVER_ADDRESSES = ['http://127.0.0.1:3000', 'https://loyalty.example.com', 'https://loyalty.example', 'https://punchcard.example', 'https://YOUR-PUNCHCARD'];
/** Ids and keys the docs write as `prefix_…`. */
const ID = /\b((?:prj|key|whk|rwd|gam|clm|store|mem|txn|cws|qst|bdg)_[0-9A-Za-z]{10,}|sk_live_[0-9A-Za-z]{20,}|pk_live_[0-9A-Za-z]{20,}|whsk_[0-9A-Za-z]{20,})/g;
const prefixOf = (id: string) => id.startsWith('sk_live_') ? 'sk_live_' : id.startsWith('pk_live_') ? 'pk_live_' : `${id.slice(0, id.indexOf('_'))}_`;

/** A block's commands: lines joined at a trailing backslash, without blank and comment lines (```console: the `$ ` lines). */
function commandsOf(block: FencedBlock): string[] {
  const lines = block.info === 'console' ? block.text.split('\n').filter((line) => line.startsWith('$ ')).map((line) => line.slice(2)) : block.text.split('\n');
  const commands: string[] = [];
  let current = '';
  for (const line of lines) {
    current += current ? `\n${line}` : line;
    if (/\\$/.test(line)) continue;
    if (current.trim() !== '' && !current.trim().startsWith('#')) commands.push(current.trim());
    current = '';
  }
  return commands;
}

const blockException = (block: FencedBlock) => BLOCK_EXCEPTIONS.find((e) => e.page === block.page && block.text.trimStart().startsWith(e.first));
/** A command as listed, or the same followed by its comment. */
const commandException = (page: string, command: string) => COMMAND_EXCEPTIONS.find((e) => e.page === page && (command === e.command || command.startsWith(`${e.command} `)));
const shellBlocks = () => DOC_PAGES.flatMap((page) => fencedBlocks(page)).filter((block) => SHELL.has(block.info));

/** One page's run: its folder, its server, what its commands printed. */
class PageRun {
  readonly dir = mkdtempSync(join(tmpdir(), 'punchcard-doc-'));
  readonly values = new Map<string, string>();
  server: { child: ChildProcessWithoutNullStreams; url: string; args: string[]; output: string } | null = null;
  receiver: Receiver | null = null;
  store: FakeWooCommerce | null = null;
  readonly #state = join(this.dir, '.shell-state');
  readonly #bin = join(this.dir, '.bin');

  constructor(readonly page: string) {
    mkdirSync(this.#bin);
    const shim = (name: string, body: string) => writeFileSync(join(this.#bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
    shim('punchcard', `exec "${process.execPath}" "${ROOT}cli/punchcard.mjs" "$@"`);
    shim('npx', `if [ "$1" = punchcard ]; then shift; exec punchcard "$@"; fi\necho "npx $*: the doc test runs only npx punchcard" >&2; exit 127`);
    shim('npm', `if [ "$1" = run ]; then cd "${ROOT}" && exec "${process.execPath}" "${npmCli()}" "$@"; fi\necho "npm $*: not run by the doc test" >&2; exit 127`);
    shim('curl', `exec /usr/bin/curl --fail-with-body --silent --show-error "$@"`);
    // dist/ of the folder is the checkout's: install.md's commands run in a checkout.
    symlinkSync(join(ROOT, 'dist'), join(this.dir, 'dist'));
    for (const [name, text] of Object.entries(READER_FILES[page] ?? {})) writeFileSync(join(this.dir, name), text);
    // The sample files a page shows (```csv smile.csv), as a reader saves them to import.
    for (const block of fencedBlocks(page)) {
      const sample = /^(?:csv|tsv)\s+(\S+)/.exec(block.info)?.[1];
      if (sample) writeFileSync(join(this.dir, sample), `${block.text}\n`);
    }
    writeFileSync(this.#state, `cd "${this.dir}"\n`);
  }

  /** Remembers every id and key a command printed, and those of a secrets file it says it wrote. */
  see(output: string): void {
    const files = [...output.matchAll(/written to (\S+\.secrets\.txt)/g)].map((match) => readFileSync(match[1]!, 'utf8'));
    for (const text of [output, ...files]) for (const [id] of text.matchAll(ID)) this.values.set(prefixOf(id), id);
  }

  /** Starts (or restarts) the page's server, as `npm start -- ARGS` does, on a free port. */
  async serve(args: string[]): Promise<void> {
    await this.stopServer();
    const extra = ['--allow-insecure-webhooks', '--allow-insecure-stores']; // the fake receiver and store are on 127.0.0.1
    const child = spawn(process.execPath, [join(ROOT, 'cli/punchcard.mjs'), 'serve', ...args, ...extra, '--port', '0'], { cwd: this.dir, env: this.env() });
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const found = /^Punchcard listening on (http:\/\/\S+)/m.exec(output)?.[1];
        if (found) resolve(found);
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('exit', (code) => reject(new Error(`${this.page}: the server exited with ${code}:\n${output}`)));
    });
    this.server = { child, url, args, output };
    child.stdout.on('data', (chunk: Buffer) => this.see(chunk.toString()));
    this.see(output);
  }

  async stopServer(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = null;
    if (server.child.exitCode !== null) return;
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    await exited;
  }

  /** The environment of the user's terminal: nothing of this test's, no PUNCHCARD_* settings; the variables the docs assume set (RUNNER_VARIABLES). */
  env(): NodeJS.ProcessEnv {
    const sk = this.values.get('sk_live_') ?? '';
    return {
      PATH: `${this.#bin}:${process.env.PATH}`, HOME: this.dir, TMPDIR: tmpdir(), LANG: 'C.UTF-8',
      ...(this.server ? { U: this.server.url } : {}), K: sk, SECRET_KEY: sk, STORE_ID: this.values.get('store_') ?? '',
    };
  }

  /** The command with the docs' placeholders filled in. */
  fill(command: string): string {
    let text = command;
    if (this.server) for (const address of SERVER_ADDRESSES) text = text.replaceAll(address, this.server.url);
    if (this.receiver) text = text.replaceAll('https://hooks.example.com/punchcard', this.receiver.url);
    if (this.store) {
      text = text.replaceAll('https://shop.example.com', this.store.url).replaceAll('ck_…', this.store.consumerKey).replaceAll('cs_…', this.store.consumerSecret);
    }
    text = text.replaceAll('s3://my-bucket/punchcard', `file://${this.dir}/replica`).replaceAll('/tmp/drill/', `${this.dir}/drill/`);
    text = text.replace(/PUNCHCARD_MASTER_KEY=…/g, () => `PUNCHCARD_MASTER_KEY=${readFileSync(join(this.dir, 'data/punchcard.db.key'), 'utf8').trim()}`);
    return text.replace(/\b(prj|key|whk|rwd|gam|clm|store|mem|txn|cws|qst|bdg|sk_live|pk_live|whsk)_…/g, (placeholder, prefix: string) => {
      const value = this.values.get(`${prefix}_`);
      if (!value) throw new Error(`${this.page}: nothing before \`${command}\` printed a ${placeholder} to fill it with`);
      return value;
    });
  }

  /**
   * Runs one command through bash, in the shell state the commands before it left. Not spawnSync:
   * the fake receiver and store answer from this process, which must keep running meanwhile.
   */
  async run(command: string): Promise<{ status: number | null; output: string }> {
    // The variables this test gives each command are not carried over: the next command gets their latest values.
    const script = `set -a\n. "${this.#state}"\n${command}\n__status=$?\nexport -p | grep -Ev '^declare -x (${RUNNER_VARIABLES.join('|')})=' > "${this.#state}"\n`
      + `echo "cd \\"$PWD\\"" >> "${this.#state}"\nexit $__status\n`;
    const child = spawn('/bin/bash', ['-c', script], { cwd: this.dir, env: this.env(), stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    const status = await new Promise<number | null>((resolve) => child.once('close', resolve));
    this.see(output);
    return { status, output };
  }

  async close(): Promise<void> {
    await this.stopServer();
    await this.receiver?.close();
    await this.store?.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** npm's own CLI, for `npm run …` (the wordpress plugin's build). */
function npmCli(): string {
  const candidates = [join(process.execPath, '../../lib/node_modules/npm/bin/npm-cli.js'), '/usr/lib/node_modules/npm/bin/npm-cli.js', '/usr/share/nodejs/npm/bin/npm-cli.js'];
  const found = candidates.find((path) => existsSync(path));
  if (!found) throw new Error('npm-cli.js not found beside this Node');
  return found;
}

/**
 * What a page assumes its reader already has, beyond its own examples: api.md's examples play a
 * game and redeem a reward for the member user-42, so the project holds the demo catalog and
 * user-42 has points; woocommerce.md's coupon example needs a reward claim.
 */
const READER_STATE: Record<string, (run: PageRun) => Promise<void>> = {
  'docs/api.md': async (run) => {
    run.receiver = await startReceiver();
    const prj = run.values.get('prj_')!;
    expect((await run.run(`punchcard seed --demo --project ${prj}`)).status).toBe(0);
    const api = client(run.server!.url, run.values.get('sk_live_'));
    expect((await api.post('/api/v1/members', { externalId: 'user-42' })).status).toBe(201);
    expect((await api.post('/api/v1/members/user-42/points', { amount: 1000 })).status).toBe(200);
    const games = (await api.get('/api/v1/games')).body.games as { id: string; type: string }[];
    run.values.set('gam_', games.find((game) => game.type === 'SPIN_WHEEL')!.id);
    const rewards = (await api.get('/api/v1/rewards')).body.rewards as { id: string; pointsCost: number; type: string }[];
    run.values.set('rwd_', rewards.find((reward) => reward.type === 'COUPON')!.id);
  },
  'docs/woocommerce.md': async (run) => {
    run.store = await startFakeWooCommerce();
  },
  'docs/webhooks.md': async (run) => {
    run.receiver = await startReceiver();
  },
};

/** woocommerce.md's coupon example is for "a claim": one, claimed once the store is connected. */
async function claimForCoupon(run: PageRun): Promise<void> {
  const api = client(run.server!.url, run.values.get('sk_live_'));
  const reward = await api.post('/api/v1/rewards', { name: 'Thank-you', type: 'CUSTOM', pointsCost: 10 });
  expect(reward.status).toBe(201);
  expect((await api.post('/api/v1/members', { externalId: 'shopper-1' })).status).toBe(201);
  expect((await api.post('/api/v1/members/shopper-1/points', { amount: 50 })).status).toBe(200);
  const claim = await api.post(`/api/v1/rewards/${reward.body.id}/redeem`, { externalId: 'shopper-1' });
  expect(claim.status, claim.text).toBe(200);
  run.values.set('clm_', claim.body.claim.id);
}

/** Pages whose examples need no server (install.md checks the executable itself, with no database yet). */
const WITHOUT_SERVER = new Set(['docs/install.md']);

/**
 * "Open the demo URL": what the page's browser does, without one. It loads /demo, which signs
 * demo-shopper for the page, and sends `init` with that signature as widget.js does, which creates
 * the member.
 */
async function openDemoPage(run: PageRun): Promise<void> {
  const page = await client(run.server!.url).get('/demo');
  expect(page.status).toBe(200);
  const claims = JSON.parse(/window\.demoConfig = Object\.assign\((\{.*?\}), \{/.exec(page.text)![1]!) as Record<string, unknown>;
  const header = Buffer.from(JSON.stringify({ publicKey: claims.publicKey, externalId: claims.externalId, timestamp: claims.timestamp,
    signature: claims.signature, member: claims.member })).toString('base64');
  const init = await client(run.server!.url).post('/api/widget/init', {}, { headers: { 'x-widget-auth': header } });
  expect(init.status, init.text).toBe(200);
  expect(init.body.member.externalId).toBe('demo-shopper');
}

/** Steps a page's text asks of its reader between two examples, done before the block that follows them. */
const PROSE_STEPS: { page: string; before: string; run: (run: PageRun) => Promise<void> }[] = [
  { page: 'docs/widget.md', before: 'members/demo-shopper/points', run: openDemoPage },
  { page: 'docs/woocommerce.md', before: '/api/commerce/coupons', run: claimForCoupon },
];

/** What a page's server needs beyond what its blocks start it with: the drill restores from the server's replica. */
const SERVER_ARGS: Record<string, (run: PageRun) => string[]> = {
  'docs/production.md': (run) => ['--replicate', `file://${run.dir}/replica`],
};

async function runPage(page: string): Promise<void> {
  const run = new PageRun(page);
  try {
    if (!WITHOUT_SERVER.has(page)) await run.serve(SERVER_ARGS[page]?.(run) ?? []);
    if (page === 'docs/production.md') {
      // The drill reads the replica: wait for Litestream's first sync, as a real drill comes later.
      await expect.poll(async () => (await client(run.server!.url).get('/healthz')).body.replication?.lastSyncAt ?? null, { timeout: 30_000 }).not.toBeNull();
    }
    await READER_STATE[page]?.(run);
    for (const block of fencedBlocks(page).filter((b) => SHELL.has(b.info) && (b.marker === RUN || b.marker === RUN_STOPPED))) {
      for (const step of PROSE_STEPS) if (step.page === page && block.text.includes(step.before)) await step.run(run);
      const serverArgs = run.server?.args ?? [];
      if (block.marker === RUN_STOPPED) await run.stopServer();
      for (const command of commandsOf(block)) {
        if (commandException(page, command)) continue;
        const where = `${page}:${block.line}: ${command}`;
        const server = /^(?:npm start(?: -- (.*?))?|(?:npx )?punchcard serve(.*?))\s*(?:#.*)?$/.exec(command);
        if (server) {
          await run.serve((server[1] ?? server[2] ?? '').trim().split(/\s+/).filter(Boolean));
          continue;
        }
        const filled = run.fill(command);
        const result = await run.run(filled);
        expect(result.status, `${where}\n${filled === command ? '' : `ran as: ${filled}\n`}${result.output}`).toBe(0);
      }
      if (block.marker === RUN_STOPPED) await run.serve(serverArgs);
    }
  } finally {
    await run.close();
  }
}

describe('the shell examples of README.md and docs/', { timeout: 120_000 }, () => {
  const blocks = shellBlocks();

  it('are each marked runnable, or listed here with the reason they cannot run', () => {
    const unaccounted = blocks.filter((block) => block.marker !== RUN && block.marker !== RUN_STOPPED && !blockException(block));
    expect(unaccounted.map((block) => `${block.page}:${block.line} (mark it <!-- ${RUN} --> or list it with its reason)\n${block.text}`)).toEqual([]);
    // Every exception still names an example of the docs.
    for (const exception of BLOCK_EXCEPTIONS) {
      expect(blocks.some((block) => blockException(block) === exception), `stale exception: ${exception.page}: ${exception.first}`).toBe(true);
    }
    for (const exception of COMMAND_EXCEPTIONS) {
      expect(blocks.some((block) => block.page === exception.page && commandsOf(block).some((command) => commandException(block.page, command) === exception)),
        `stale exception: ${exception.command}`).toBe(true);
    }
    expect(blocks.length).toBeGreaterThan(30);
  });

  it('and every fenced block names its language, so no shell hides in an unnamed one', () => {
    const unnamed = DOC_PAGES.flatMap((page) => fencedBlocks(page)).filter((block) => block.info === '');
    expect(unnamed.map((block) => `${block.page}:${block.line}`)).toEqual([]);
  });

  const pages = [...new Set(blocks.filter((block) => block.marker === RUN || block.marker === RUN_STOPPED).map((block) => block.page))];
  for (const page of pages) {
    const needsBinary = page === 'docs/install.md';
    if (needsBinary && !existsSync(BINARY) && CI) throw new Error('dist/punchcard is missing: CI runs `npm run build:binary` before the tests');
    const missing = needsBinary && !existsSync(BINARY);
    it.skipIf(missing)(`${page}: every runnable example works as written`, {
      meta: missing ? { skipReason: 'dist/punchcard is not built here: `npm run build:binary` makes it (CI does, before the tests)' } : {},
    }, () => runPage(page));
  }
});
