// Builds dist/: the CLI and server bundled into one CommonJS file (dist/punchcard.cjs) with its V8
// code cache (dist/punchcard.cache), the replication relay's worker (dist/relay.mjs), the SDK
// (dist/sdk.mjs, `punchcard/sdk`), the schema the migrations make (dist/schema.json, which every
// open checks the database against), the browser widget (dist/public/) and the operators' app
// (dist/public/admin/). Run by `npm ci` (the "prepare" script), `npm run build`, and before the
// tests; never when the server or the CLI starts.
// The widget's build is TypeScript: `npm run build` loads it through tsx, vitest through Vite
// (both development dependencies, like esbuild).
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { bundleWrapper, sealCache } from './run-bundle.cjs';
import { trainCodeCache } from './train-code-cache.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = `${ROOT}dist/`;
const ESM_ENTRIES = { relay: `${ROOT}src/replication/relay.ts`, sdk: `${ROOT}sdk/index.ts` };
/** What a build leaves in dist/, beside the widget. */
const OUTPUTS = ['punchcard.cjs', 'punchcard.cjs.map', 'relay.mjs', 'relay.mjs.map', 'sdk.mjs', 'sdk.mjs.map', 'schema.json'];

/**
 * A package the program imports only when a feature is used (`await import()`: the Discord gateway,
 * CSV, Markdown, pino, prom-client, listhen) stays in node_modules and loads then. Every other one
 * is bundled: a start reads and compiles one file instead of resolving a hundred-odd modules.
 */
const loadedWhenUsed = {
  name: 'loaded-when-used',
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, (args) => (args.kind === 'dynamic-import' ? { path: args.path, external: true } : undefined));
  },
};

/**
 * Rewrites a bundle so its text is ASCII. V8 holds a script's source for the process's life, at two
 * bytes a character once one character is not Latin-1: one such character (rou3's router keeps a
 * literal U+FFFC in a regular expression, which esbuild does not escape) doubles that string, about
 * 1 MB of idle memory. A \uXXXX escape means the same character in strings, regular expressions,
 * identifiers and comments; a backslash that escaped the character itself (`\×`, which means `×`)
 * is dropped, or it would escape the new escape's own backslash.
 */
export function escapeToAscii(file) {
  const text = readFileSync(file, 'utf8');
  const ascii = text.replace(/(\\*)([\u0080-\uffff])/g, (_, backslashes, unit) =>
    `${backslashes.slice(backslashes.length % 2)}\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) writeFileSync(file, ascii);
}

/** esbuild's banner and footer options for a bundleWrapper. */
export const wrapped = ({ banner, footer }) => ({ banner: { js: banner }, footer: { js: footer } });

export async function build() {
  const { build: esbuild } = await import('esbuild');
  // Built beside, then renamed into place: a process starting meanwhile sees the old files or the
  // new ones, never half of one, and two builds at once both end with whole files. The folder sits
  // beside dist/, as deep, so the source maps' relative paths to src/ hold after the rename.
  const temp = `${ROOT}.dist-build-${process.pid}/`;
  for (const folder of [temp, OUT_DIR]) mkdirSync(folder, { recursive: true });
  try {
    const common = { bundle: true, platform: 'node', target: 'node20', sourcemap: 'linked', logLevel: 'silent', outdir: temp };
    await esbuild({ ...common, entryPoints: ESM_ENTRIES, outExtension: { '.js': '.mjs' }, format: 'esm', packages: 'external' });
    await esbuild({
      ...common, entryPoints: { punchcard: `${ROOT}cli/main.ts` }, outExtension: { '.js': '.cjs' }, format: 'cjs',
      external: ['better-sqlite3'], plugins: [loadedWhenUsed], supported: { 'dynamic-import': false },
      // A CommonJS bundle has no import.meta: its own file's URL stands in (src/shared/root.ts).
      define: { 'import.meta.url': '__punchcard_url' }, ...wrapped(bundleWrapper('require("node:url").pathToFileURL(__filename).href')),
    });
    escapeToAscii(`${temp}punchcard.cjs`);
    const { migrationsFromDir } = await import('../src/db/migrations.ts');
    const { schemaFile } = await import('../src/db/schema-check.ts');
    writeFileSync(`${temp}schema.json`, schemaFile(migrationsFromDir(`${ROOT}migrations`)));
    // The old cache goes first: a start between the renames compiles without one.
    rmSync(`${OUT_DIR}punchcard.cache`, { force: true });
    for (const name of OUTPUTS) renameSync(`${temp}${name}`, `${OUT_DIR}${name}`);
    // Left by builds before the bundle was CommonJS.
    for (const name of ['punchcard.mjs', 'punchcard.mjs.map']) rmSync(`${OUT_DIR}${name}`, { force: true });
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  const { buildWidget } = await import('../widget/build.ts');
  const { buildAdmin } = await import('../admin/build.ts');
  const { writeWidgetFiles } = await import('../widget/files.ts');
  // dist/public/ is replaced as a whole: the widget and the admin (admin/…) are written together.
  writeWidgetFiles(new Map([...await buildWidget(), ...await buildAdmin()]));

  const trained = `${OUT_DIR}.punchcard-${process.pid}.cache`;
  try {
    await trainCodeCache([process.execPath, `${ROOT}cli/punchcard.mjs`], trained);
    writeFileSync(trained, sealCache(readFileSync(`${OUT_DIR}punchcard.cjs`), readFileSync(trained)));
    renameSync(trained, `${OUT_DIR}punchcard.cache`);
  } finally {
    rmSync(trained, { force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await build();
