// Keeps dist/punchcard.mjs, the CLI and server bundled into one file, in step with the sources.
// Plain JavaScript: it runs before anything that could load TypeScript.
import { mkdirSync, readdirSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const ENTRY = `${ROOT}cli/main.ts`;
const OUT_DIR = `${ROOT}dist/`;
const OUT = `${OUT_DIR}punchcard.mjs`;
/** What the bundle is made of: the sources, and package.json (version, external packages). */
const INPUTS = ['src', 'cli', 'widget', 'package.json'];

/** The newest modification time under a path; a folder's own time covers deleted and renamed files. */
function newestChange(path) {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat?.isDirectory()) return stat?.mtimeMs ?? 0;
  return readdirSync(path).reduce((newest, name) => Math.max(newest, newestChange(`${path}/${name}`)), stat.mtimeMs);
}

async function bundle() {
  const { build } = await import('esbuild');
  const started = new Date();
  // Built beside, then renamed into place: a process starting meanwhile sees the old bundle or the
  // new one, never half of one, and two processes building at once both end with a whole file.
  const temp = `${OUT_DIR}.build-${process.pid}/`;
  mkdirSync(temp, { recursive: true });
  try {
    await build({
      entryPoints: [ENTRY], outfile: `${temp}punchcard.mjs`, bundle: true, platform: 'node', format: 'esm',
      target: 'node20', packages: 'external', sourcemap: 'linked', logLevel: 'silent',
    });
    renameSync(`${temp}punchcard.mjs.map`, `${OUT}.map`);
    // Stamped with the time the sources were read: a file saved during the build is newer, so the
    // next start rebuilds.
    utimesSync(`${temp}punchcard.mjs`, started, started);
    renameSync(`${temp}punchcard.mjs`, OUT);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

/**
 * The module to run: the bundle, rebuilt first when a source is newer than it. Where the checkout
 * cannot be written (a read-only install), the sources run through tsx instead, slower to start.
 */
export async function cliEntry() {
  const built = statSync(OUT, { throwIfNoEntry: false })?.mtimeMs ?? -1;
  if (built >= Math.max(...INPUTS.map((input) => newestChange(`${ROOT}${input}`)))) return pathToFileURL(OUT).href;
  try {
    await bundle();
    return pathToFileURL(OUT).href;
  } catch (error) {
    if (!['EACCES', 'EPERM', 'EROFS'].includes(error?.code)) throw error;
    const { register } = await import('tsx/esm/api');
    register();
    return pathToFileURL(ENTRY).href;
  }
}

// `npm ci` builds it once (the "prepare" script), so an install the service cannot write to
// starts from the bundle too.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await bundle();
