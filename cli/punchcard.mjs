#!/usr/bin/env node
// Entry point of the `punchcard` command. It runs the CLI and server bundled into one file by
// esbuild (dist/punchcard.mjs, rebuilt when a source changes): that starts several times faster
// than loading every TypeScript module through tsx, which matters to a CLI run once per command.
import { cliEntry } from './bundle.mjs';

process.setSourceMapsEnabled(true);
await import(await cliEntry());
