import { readdirSync } from 'node:fs';
import type { Metafile } from 'esbuild';
import { rootPath } from '../src/shared/root.ts';
import { ADMIN_ASSETS, ADMIN_HTML, ADMIN_MANIFEST, PREVIEW_HTML, type AdminFiles, type AdminManifest } from './files.ts';
import { en } from './src/i18n/en.ts';
import { escapeHtml } from '../src/shared/html-text.ts';

const ROOT = rootPath('');
const SRC = rootPath('admin/src/');
const OUT = `${ROOT}admin-build/`;

/** Every file in src/pages/ is a page: an entry of its own, so each is a script of its own that the app imports when first shown. */
const PAGES = readdirSync(`${SRC}pages`).filter((name) => name.endsWith('.tsx')).map((name) => name.slice(0, -4));


/**
 * The pages' HTML: no inline script or style (the policy allows neither), the entry as a module,
 * its static imports preloaded so they come in parallel rather than one after another.
 */
const html = (title: string, body: string, head: string) => `<!doctype html>
<html lang="${en.locale}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><link rel="icon" type="image/svg+xml" href="/favicon.svg">${head}</head>
<body>${body}</body></html>
`;

/** An output's path under OUT, as served (relative to /admin/assets/). */
const served = (output: string) => output.slice('admin-build/'.length);

/** The scripts an output imports statically, and theirs, without the output itself. */
function staticClosure(metafile: Metafile, output: string, seen = new Set<string>()): Set<string> {
  for (const { path, kind } of metafile.outputs[output]!.imports) {
    if (kind !== 'import-statement' || seen.has(path) || !path.startsWith('admin-build/')) continue;
    seen.add(path);
    staticClosure(metafile, path, seen);
  }
  return seen;
}

/**
 * Builds the operators' app from its TypeScript sources, in memory: an ES-module entry (the shell:
 * router, session, layout, words), one script per page imported when the page is first shown
 * (esbuild's code splitting puts what pages share into chunks of their own), one stylesheet, the
 * widget preview's script, and the two HTML pages naming them by content hash. Run by `npm run
 * build` (and so `npm ci` and the tests' global setup), which writes them under dist/public/admin/;
 * the server only reads them.
 */
export async function buildAdmin(): Promise<AdminFiles> {
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: { main: `${SRC}main.tsx`, preview: `${SRC}preview/preview.ts`, ...Object.fromEntries(PAGES.map((page) => [page, `${SRC}pages/${page}.tsx`])) },
    bundle: true, splitting: true, format: 'esm', minify: true, write: false, metafile: true, target: 'es2020', charset: 'utf8',
    jsx: 'automatic', jsxImportSource: 'preact', legalComments: 'none', logLevel: 'silent', absWorkingDir: ROOT,
    outdir: OUT, entryNames: '[name].[hash]', chunkNames: 'shared.[hash]', assetNames: '[name].[hash]',
  });
  const { metafile } = result;
  const outputs = Object.entries(metafile.outputs);
  const entryOf = (name: string) => outputs.find(([, output]) => output.entryPoint?.endsWith(name))![0];
  const main = entryOf('src/main.tsx');
  const preview = entryOf('src/preview/preview.ts');
  const css = outputs.filter(([path]) => path.endsWith('.css')).map(([path]) => served(path));
  if (css.length !== 1) throw new Error(`admin build: expected one stylesheet, got ${css.join(', ') || 'none'} (import CSS from src/main.tsx only)`);
  const shell = staticClosure(metafile, main);
  const manifest: AdminManifest = {
    entry: served(main),
    pages: {
      entry: [...shell].map(served),
      ...Object.fromEntries(PAGES.map((page) => {
        const output = entryOf(`src/pages/${page}.tsx`);
        return [page, [output, ...staticClosure(metafile, output)].filter((path) => path !== main && !shell.has(path)).map(served)];
      })),
    },
    firstPages: ['sign-in', 'overview'],
  };
  const asset = (name: string) => `/admin/${ADMIN_ASSETS.slice('admin/'.length)}${name}`;
  const files: [string, Buffer][] = result.outputFiles
    .filter((file) => !file.path.endsWith('.map'))
    .map((file) => [`${ADMIN_ASSETS}${served(file.path.slice(ROOT.length))}`, Buffer.from(file.contents)]);
  const head = `<link rel="stylesheet" href="${asset(css[0]!)}">${manifest.pages.entry!.map((name) => `<link rel="modulepreload" href="${asset(name)}">`).join('')}`
    + `<script type="module" src="${asset(manifest.entry)}"></script>`;
  files.push(
    [ADMIN_HTML, Buffer.from(html(en.app.title, `<div id="app"></div><noscript>${escapeHtml(en.app.noscript)}</noscript>`, head))],
    // The preview runs the real widget (/widget.js, as shops load it) on sample data the admin page hands it.
    [PREVIEW_HTML, Buffer.from(html(en.preview.title, '', `<script type="module" src="${asset(served(preview))}"></script><script src="/widget.js" defer></script>`))],
    [ADMIN_MANIFEST, Buffer.from(JSON.stringify(manifest, null, 1))],
  );
  return new Map(files.sort(([a], [b]) => a.localeCompare(b)));
}

