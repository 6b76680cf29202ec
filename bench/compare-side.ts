// One side of `npm run bench -- --compare <commit>`: a tree of Punchcard (a git worktree of the
// commit, or this checkout), its server started the way that tree starts it (its package.json
// "start"), and a database seeded through that tree's own CLI and HTTP API, so an old commit runs
// nothing of this checkout's modules.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { searchProfile } from './profiles.ts';
import { buildBundle, listening, startServerProcess, stopServer, type ServerProcess } from './pinned-server.ts';
import { BENCH_MASTER_KEY, CACHE_DIR, fmt } from './settings.ts';

export interface Side {
  label: string;
  dir: string;
  /** Names the tree's seeded database in the cache; null when the tree has uncommitted changes. */
  cacheKey: string | null;
}

interface PackageJson {
  scripts?: Record<string, string>;
  bin?: string | Record<string, string>;
}

const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();
const packageJson = (dir: string) => JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson;

/** This checkout, its bundle rebuilt from the sources as they are now (its `start` runs the bundle). */
export function checkoutSide(root: string): Side {
  const head = git(root, 'rev-parse', '--short=7', 'HEAD');
  // bench/ is not part of the server: commits and changes there keep the seed cache valid.
  const changed = git(root, 'status', '--porcelain', '--untracked-files=no', '--', '.', ':(exclude)bench') !== '';
  const server = git(root, 'ls-tree', 'HEAD').split('\n').filter((entry) => !entry.endsWith('\tbench')).join('\n');
  if (packageJson(root).scripts?.build) buildBundle(root);
  return {
    label: `checkout ${head}${changed ? '+changes' : ''}`, dir: root,
    cacheKey: changed ? null : `tree-${createHash('sha256').update(server).digest('hex').slice(0, 12)}`,
  };
}

/** A git worktree of `commit` under the cache dir, with `npm ci` run once (it builds what the commit builds on install). */
export function commitSide(root: string, commit: string): Side {
  const sha = git(root, 'rev-parse', '--verify', `${commit}^{commit}`);
  const home = join(CACHE_DIR, 'compare', sha.slice(0, 12));
  const dir = join(home, 'tree');
  if (!existsSync(join(dir, 'package.json'))) {
    git(root, 'worktree', 'prune');
    mkdirSync(home, { recursive: true });
    execFileSync('git', ['worktree', 'add', '--detach', dir, sha], { cwd: root, stdio: 'inherit' });
  }
  const installed = join(home, 'npm-ci.done');
  if (!existsSync(installed)) {
    console.log(`npm ci in ${dir} (once for this commit)`);
    execFileSync('npm', ['ci'], { cwd: dir, stdio: 'inherit' });
    writeFileSync(installed, `${new Date().toISOString()}\n`);
  }
  return { label: sha.slice(0, 7), dir, cacheKey: sha.slice(0, 12) };
}

/** The tree's `npm start`, run by this Node (npm would add a process of its own between). */
function startCommand(dir: string): [string, string[]] {
  const start = packageJson(dir).scripts?.start ?? '';
  const [program, ...args] = start.split(/\s+/).filter(Boolean);
  if (program !== 'node') throw new Error(`${dir}: package.json "start" is "${start}"; the comparison runs only "node …" start scripts`);
  return [process.execPath, args];
}

function cliEntry(dir: string): string {
  const { bin } = packageJson(dir);
  const entry = typeof bin === 'string' ? bin : bin?.punchcard;
  if (!entry) throw new Error(`${dir}: package.json has no "bin" for punchcard`);
  return join(dir, entry);
}

/** Settings as environment variables, which every version reads (an older one ignores what it does not know). */
const environment = (db: string): NodeJS.ProcessEnv => ({
  ...process.env, PUNCHCARD_DB: db, PUNCHCARD_PORT: '0', PUNCHCARD_HOST: '127.0.0.1', PUNCHCARD_MASTER_KEY: BENCH_MASTER_KEY, PUNCHCARD_LOG: 'silent',
});

/**
 * Starts the tree's server on `db` and waits for its "listening on" line; pinned to the server
 * core unless `seeding` (then it may use any core, and skips the fsync per batch).
 */
export function startSide(side: Side, db: string, seeding = false): Promise<ServerProcess> {
  const [node, args] = startCommand(side.dir);
  // synchronous=NORMAL writes the same rows; the measured runs use the default, FULL.
  const env = { ...environment(db), ...(seeding ? { PUNCHCARD_SYNCHRONOUS: 'normal' } : {}) };
  return startServerProcess(node, args, listening, { label: side.label, cwd: side.dir, env, pin: !seeding });
}

export interface Seed {
  path: string;
  secretKey: string;
  members: number;
}

const SQLITE_FILES = ['', '-wal', '-shm'];

/** Awards of 1 to 1,000 points, so members rank by different totals. */
const seedAward = (i: number) => 1 + ((i * 7919) % 1000);

/**
 * A database of `members` members (cust-0000001 …, with names and emails to search) and one award
 * each, made by the side itself: its CLI creates the project, its server takes the members and
 * awards over HTTP. Cached per commit; a checkout with changes seeds into `workDir` every run.
 */
export async function seededDatabase(side: Side, members: number, workDir: string): Promise<Seed> {
  const path = side.cacheKey ? join(CACHE_DIR, 'compare', `seed-${side.cacheKey}-${members}.db`) : join(workDir, `seed-${members}.db`);
  const keyFile = `${path}.json`;
  if (existsSync(keyFile)) return { path, members, ...(JSON.parse(readFileSync(keyFile, 'utf8')) as { secretKey: string }) };
  const building = join(workDir, `seeding-${members}.db`);
  const created = execFileSync(process.execPath, [cliEntry(side.dir), 'projects', 'create', '--name', 'Bench', '--json'],
    { cwd: side.dir, env: environment(building), encoding: 'utf8' });
  const { secretKey } = JSON.parse(created) as { secretKey: string };
  console.log(`${side.label}: seeding ${fmt(members)} members and an award each over HTTP into ${path}`);
  const started = performance.now();
  const server = await startSide(side, building, true);
  try {
    await fill(server.url, secretKey, members);
  } finally {
    await stopServer(server);
  }
  console.log(`${side.label}: seeded in ${Math.round((performance.now() - started) / 1000)} s`);
  for (const suffix of SQLITE_FILES) if (existsSync(building + suffix)) renameSync(building + suffix, path + suffix);
  rmSync(`${building}.lock`, { force: true });
  writeFileSync(keyFile, `${JSON.stringify({ secretKey })}\n`);
  return { path, secretKey, members };
}

/** A private copy of the seed for one run, which writes to it. */
export function copySeed(seed: Seed, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const path = join(dir, 'punchcard.db');
  for (const suffix of SQLITE_FILES.slice(0, 2)) if (existsSync(seed.path + suffix)) copyFileSync(seed.path + suffix, path + suffix);
  return path;
}

async function fill(url: string, secretKey: string, members: number): Promise<void> {
  const headers = { authorization: `Bearer ${secretKey}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown, expected: number) => {
    const res = await fetch(`${url}/api/v1${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== expected) throw new Error(`seeding: POST ${path} answered ${res.status}: ${text}`);
  };
  let next = 1;
  const worker = async () => {
    for (let i = next++; i <= members; i = next++) {
      const profile = searchProfile(i);
      await post('/members', profile, 201);
      await post(`/members/${profile.externalId}/points`, { amount: seedAward(i) }, 200);
      if (i % 20_000 === 0) console.log(`  ${fmt(i)} members`);
    }
  };
  await Promise.all(Array.from({ length: 64 }, worker));
}
