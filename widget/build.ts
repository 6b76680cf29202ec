import type { Metafile, Plugin } from 'esbuild';
import { rootPath } from '../src/shared/root.ts';
import { CHUNKS, SHARED } from './src/chunks.ts';
import { scriptVersion, WIDGET_SCRIPT, type WidgetFiles } from './files.ts';

export { describeSize, gzip, WIDGET_BUDGET_BYTES, WIDGET_SCRIPT, type WidgetFiles } from './files.ts';

const ROOT = rootPath('');
const SRC = rootPath('widget/src/');

const OPTIONS = {
  bundle: true, minify: true, write: false, format: 'iife', target: 'es2020', charset: 'utf8', jsx: 'automatic', jsxImportSource: 'preact',
  legalComments: 'none', logLevel: 'silent', metafile: true, absWorkingDir: ROOT,
} as const;

/** What a chunk's code reads from its own <script> element (lazy.tsx puts it there). */
const HANDOVER = 'document.currentScript.punchcard';

/** SHARED's modules, each with the position of its first name in the flat list handed over. */
const SHARED_MODULES = Object.entries(SHARED).map(([specifier, names], i, all) =>
  ({ specifier, names, first: all.slice(0, i).reduce((sum, [, before]) => sum + before.length, 0) }));

/**
 * In a chunk, the modules of SHARED are the main script's copies, handed over by the loader; an
 * import of a name SHARED does not list fails the build. Every other import is bundled into the chunk.
 */
function sharedFromMain(): Plugin {
  return {
    name: 'punchcard-chunks',
    setup(build) {
      const skip = Symbol('resolving');
      let paths: Promise<Map<string, string>> | undefined;
      /** Each shared module's file, as the chunks' imports resolve to it, and its specifier in SHARED. */
      const sharedPaths = () => (paths ??= Promise.all(SHARED_MODULES.map(async ({ specifier }) => {
        const resolved = await build.resolve(specifier, { kind: 'import-statement', resolveDir: SRC, pluginData: skip });
        if (resolved.errors.length) throw new Error(`widget build: cannot resolve the shared module ${specifier}`);
        return [resolved.path, specifier] as const;
      })).then((pairs) => new Map(pairs)));

      build.onResolve({ filter: /^punchcard-chunk:/ }, (args) => ({ path: args.path.slice('punchcard-chunk:'.length), namespace: 'punchcard-chunk' }));
      build.onLoad({ filter: /.*/, namespace: 'punchcard-chunk' }, (args) => ({
        contents: `import * as chunk from ${JSON.stringify(`./${CHUNKS[args.path as keyof typeof CHUNKS]}`)};${HANDOVER}.exports = chunk;`,
        resolveDir: SRC, loader: 'js',
      }));
      build.onResolve({ filter: /.*/ }, async (args) => {
        if (args.pluginData === skip || args.namespace !== 'file' && args.namespace !== 'punchcard-chunk') return undefined;
        const resolved = await build.resolve(args.path, { kind: args.kind, resolveDir: args.resolveDir, importer: args.importer, pluginData: skip });
        const specifier = (await sharedPaths()).get(resolved.path);
        return specifier === undefined ? undefined : { path: specifier, namespace: 'shared-from-widget.js' };
      });
      build.onLoad({ filter: /.*/, namespace: 'shared-from-widget.js' }, (args) => {
        const { names, first } = SHARED_MODULES.find(({ specifier }) => specifier === args.path)!;
        return { contents: `const shared = ${HANDOVER}.shared;${names.map((name, i) => `export const ${name} = shared[${first + i}];`).join('')}`, loader: 'js' };
      });
    },
  };
}

/** In the main script, `punchcard:shared` (lazy.tsx) is the flat list of SHARED's names, which it hands to chunks. */
const sharedList: Plugin = {
  name: 'punchcard-shared-list',
  setup(build) {
    build.onResolve({ filter: /^punchcard:shared$/ }, () => ({ path: 'shared', namespace: 'punchcard-shared-list' }));
    build.onLoad({ filter: /.*/, namespace: 'punchcard-shared-list' }, () => ({
      contents: SHARED_MODULES.map(({ specifier, names, first }) =>
        `import { ${names.map((name, i) => `${name} as s${first + i}`).join(', ')} } from ${JSON.stringify(specifier)};`).join('\n')
        + `\nexport default [${SHARED_MODULES.flatMap(({ names, first }) => names.map((_, i) => `s${first + i}`)).join(', ')}];`,
      resolveDir: SRC, loader: 'js',
    }));
  },
};

const inputsOf = (metafile: Metafile, output: string) => Object.keys(metafile.outputs[output]!.inputs).filter((input) => !input.includes(':'));

/**
 * Builds the widget from its TypeScript sources, in memory: the main script, widget.js, which
 * every page loads, and one chunk per seldom-opened panel (chunks.ts), named by its content hash,
 * which widget.js fetches from beside itself when the panel is first shown. Run by `npm run build`
 * (and so by `npm ci`), which writes the files to dist/public/; the server only reads them.
 */
export async function buildWidget(): Promise<WidgetFiles> {
  // Loaded on first use: most commands never build the widget, and esbuild is slow to load.
  const { build } = await import('esbuild');
  const names = Object.keys(CHUNKS);
  const chunks = await build({
    ...OPTIONS, entryPoints: Object.fromEntries(names.map((name) => [name, `punchcard-chunk:${name}`])), outdir: `${ROOT}widget-chunks`, plugins: [sharedFromMain()],
  }).catch((error: Error) => {
    throw new Error(`${error.message}\n(widget build: a chunk takes from widget.js only the names SHARED in widget/src/chunks.ts lists)`, { cause: error });
  });
  const files: [string, Buffer][] = [];
  const hashes: Record<string, string> = {};
  const chunkInputs = new Map<string, string[]>();
  for (const name of names) {
    const code = Buffer.from(chunks.outputFiles.find((file) => file.path.endsWith(`/${name}.js`))!.contents);
    // The name lazy.tsx asks for; a new release's chunk never has an old one's name, so it may be cached for good.
    hashes[name] = scriptVersion(code);
    const file = `widget/${name}.${hashes[name]}.js`;
    files.push([file, code]);
    chunkInputs.set(file, inputsOf(chunks.metafile, `widget-chunks/${name}.js`));
  }
  const main = await build({
    ...OPTIONS, entryPoints: [`${SRC}main.tsx`], outfile: `${ROOT}widget.js`, plugins: [sharedList], define: { PUNCHCARD_CHUNKS: JSON.stringify(hashes) },
  });
  // A module in both would run twice, with two states (two Preacts, two contexts): it must be shared.
  const inMain = new Set(inputsOf(main.metafile, 'widget.js'));
  for (const [file, inputs] of chunkInputs) {
    const twice = inputs.filter((input) => inMain.has(input));
    if (twice.length) throw new Error(`widget build: ${file} would carry its own copy of ${twice.join(', ')}; add it to SHARED in widget/src/chunks.ts`);
  }
  return new Map([[WIDGET_SCRIPT, Buffer.from(main.outputFiles[0]!.contents)], ...files.sort(([a], [b]) => a.localeCompare(b))]);
}
