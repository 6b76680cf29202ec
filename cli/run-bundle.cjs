'use strict';
// Runs the CLI and server's CommonJS bundle through V8 with a code cache made at build time by a
// training start, for `npm start` (cli/punchcard.mjs) and the single executable's entry (whose text
// this file begins: cli/build-binary.mjs). Compiling the bundle and the functions a start runs is
// about a quarter of a start's work; Node caches neither on its own for a script it is given.
// A cache V8 refuses (another Node, other V8 flags, e.g. from NODE_OPTIONS) only costs the
// compiling it would have saved. PUNCHCARD_BUILD_CODE_CACHE is for the build's training start
// alone: the file to write the cache to as the process exits, or `check` to print whether the
// cache was taken.
const { createHash } = require('node:crypto');
const { Script, constants } = require('node:vm');

/**
 * The bundle's first and last lines (esbuild's banner and footer) make it one function expression,
 * the way Node wraps a module, so the file's text compiles as it is, without a copy to wrap it.
 * Required as a module instead (Node's loader, when source maps are on), it runs itself.
 */
const bundleWrapper = (url) => ({
  banner: `(typeof module === "object" ? (run) => run(exports, require, module, __filename, __dirname) : (run) => run)(function (exports, require, module, __filename, __dirname) { "use strict"; var __punchcard_url = ${url};`,
  footer: '})',
});

/**
 * @param {string} source the bundle's text (bundleWrapper)
 * @param {Buffer | undefined} cache V8's code cache for exactly this text, or nothing
 * @param {string} filename where stack traces say the code is
 * @param {NodeJS.Require} moduleRequire the `require` the bundle gets
 */
function runBundle(source, cache, filename, moduleRequire) {
  const script = new Script(source, {
    filename,
    cachedData: cache && cache.length > 0 ? cache : undefined,
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  });
  const training = process.env.PUNCHCARD_BUILD_CODE_CACHE;
  if (training === 'check') process.stderr.write(cache && cache.length > 0 && !script.cachedDataRejected ? 'code cache taken\n' : 'code cache refused\n');
  else if (training) process.once('exit', () => require('node:fs').writeFileSync(training, script.createCachedData()));
  const bundle = { exports: {} };
  script.runInThisContext()(bundle.exports, moduleRequire, bundle, filename, require('node:path').dirname(filename));
}

/**
 * npm start's cache file (dist/punchcard.cache): the bundle's sha256, then V8's data. V8 checks a
 * cache against its source's length only; the hash ties the file to the bundle it was made from.
 */
const sha256 = (source) => createHash('sha256').update(source).digest();
/** The file's contents for `source` (its text or bytes) and V8's `data`. */
const sealCache = (source, data) => Buffer.concat([sha256(source), data]);
/** V8's data from such a file, or nothing when the file is missing or was made for another bundle. */
const openCache = (source, file) => (file?.subarray(0, 32).equals(sha256(source)) ? file.subarray(32) : undefined);

module.exports = { bundleWrapper, runBundle, sealCache, openCache };
