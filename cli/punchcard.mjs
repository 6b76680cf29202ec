#!/usr/bin/env node
// Entry point of the `punchcard` command: it runs the CLI and server that `npm ci` (or
// `npm run build`) bundled into dist/punchcard.cjs, with the V8 code cache the build trained
// (dist/punchcard.cache; cli/run-bundle.cjs). Nothing is built or transpiled here.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const bundle = fileURLToPath(new URL('../dist/punchcard.cjs', import.meta.url));
if (!existsSync(bundle)) {
  console.error('punchcard: dist/punchcard.cjs is missing; run `npm run build` in the checkout (`npm ci` runs it).');
  process.exit(1);
}
const require = createRequire(import.meta.url);
// Source maps stay off unless asked for: with them, Node read the 1.3 MB map at every start (~40 ms)
// and parsed it at the first error whose stack was read, which h3 reads for every error answer (a
// 70-100 ms stall on a server's first 4xx). With `NODE_OPTIONS=--enable-source-maps`, Node's own
// loader runs the bundle, which reads its map: stack traces then show `src/` positions.
if (process.sourceMapsEnabled) require(bundle);
else {
  const source = readFileSync(bundle, 'utf8');
  const cacheFile = fileURLToPath(new URL('../dist/punchcard.cache', import.meta.url));
  const { openCache, runBundle } = require('./run-bundle.cjs');
  runBundle(source, openCache(source, existsSync(cacheFile) ? readFileSync(cacheFile) : undefined), bundle, createRequire(bundle));
}
