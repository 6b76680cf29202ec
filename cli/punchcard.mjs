#!/usr/bin/env node
// Entry point of the `punchcard` command: it runs the CLI and server that `npm ci` (or
// `npm run build`) bundled into dist/punchcard.mjs. Nothing is built or transpiled here.
import { existsSync } from 'node:fs';

const bundle = new URL('../dist/punchcard.mjs', import.meta.url);
if (!existsSync(bundle)) {
  console.error('punchcard: dist/punchcard.mjs is missing; run `npm run build` in the checkout (`npm ci` runs it).');
  process.exit(1);
}
process.setSourceMapsEnabled(true);
await import(bundle.href);
