// Builds dist/punchcard-loyalty.zip, the file a shop owner uploads under Plugins → Add New →
// Upload Plugin. WordPress wants the plugin's folder at the top of the zip.
import { readdirSync, readFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { zipSync, type Zippable } from 'fflate';

const here = dirname(fileURLToPath(import.meta.url));
export const PLUGIN_DIR = join(here, 'punchcard-loyalty');
export const PLUGIN_ZIP = resolve(here, '../../dist/punchcard-loyalty.zip');

/** A fixed date for every entry, so the same sources always give the same bytes. */
const MTIME = new Date('2026-01-01T00:00:00Z');

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? files(path) : [path];
  }).sort();
}

/** The zip's bytes: punchcard-loyalty/… with every file of the plugin's folder. */
export function pluginZip(): Uint8Array {
  const entries: Zippable = {};
  for (const path of files(PLUGIN_DIR)) {
    entries[`punchcard-loyalty/${relative(PLUGIN_DIR, path).split('\\').join('/')}`] = [readFileSync(path), { mtime: MTIME }];
  }
  return zipSync(entries, { level: 9 });
}

export function buildPluginZip(out = PLUGIN_ZIP): string {
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, pluginZip());
  return out;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`Wrote ${relative(process.cwd(), buildPluginZip())}`);
}
