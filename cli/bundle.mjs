// Builds dist/: the CLI and server bundled into one file (dist/punchcard.mjs), the replication
// relay's worker (dist/relay.mjs), the SDK (dist/sdk.mjs, `punchcard/sdk`) and the browser widget (dist/public/). Run by `npm ci` (the
// "prepare" script), `npm run build`, and before the tests; never when the server or the CLI starts.
// The widget's build is TypeScript: `npm run build` loads it through tsx, vitest through Vite
// (both development dependencies, like esbuild).
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUT_DIR = `${ROOT}dist/`;
const ENTRIES = { punchcard: `${ROOT}cli/main.ts`, relay: `${ROOT}src/replication/relay.ts`, sdk: `${ROOT}sdk/index.ts` };

export async function build() {
  const { build: esbuild } = await import('esbuild');
  // Built beside, then renamed into place: a process starting meanwhile sees the old files or the
  // new ones, never half of one, and two builds at once both end with whole files.
  const temp = `${OUT_DIR}.build-${process.pid}/`;
  mkdirSync(temp, { recursive: true });
  try {
    await esbuild({
      entryPoints: ENTRIES, outdir: temp, outExtension: { '.js': '.mjs' }, bundle: true, platform: 'node', format: 'esm',
      target: 'node20', packages: 'external', sourcemap: 'linked', logLevel: 'silent',
    });
    for (const name of Object.keys(ENTRIES)) {
      renameSync(`${temp}${name}.mjs.map`, `${OUT_DIR}${name}.mjs.map`);
      renameSync(`${temp}${name}.mjs`, `${OUT_DIR}${name}.mjs`);
    }
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
  const { buildWidget } = await import('../widget/build.ts');
  const { writeWidgetFiles } = await import('../widget/files.ts');
  writeWidgetFiles(await buildWidget());
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await build();
