#!/usr/bin/env node
// Entry point of the `punchcard` command: it runs the CLI and server that `npm ci` (or
// `npm run build`) bundled into dist/punchcard.mjs. Nothing is built or transpiled here.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/punchcard.mjs', import.meta.url);
if (!existsSync(bundle)) {
  console.error('punchcard: dist/punchcard.mjs is missing; run `npm run build` in the checkout (`npm ci` runs it).');
  process.exit(1);
}
// Source maps stay off: with them, Node read the 1.3 MB map at every start (~40 ms) and parsed it
// at the first error whose stack was read, which h3 reads for every error answer (a 70-100 ms stall
// on a server's first 4xx). `NODE_OPTIONS=--enable-source-maps` turns them on for debugging.
await import(bundle.href);
