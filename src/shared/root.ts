import { existsSync } from 'node:fs';
import { isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';

/**
 * The checkout's root folder: the nearest folder above this module holding package.json. The
 * search (not a fixed `..`) holds for the sources (src/shared/) and the bundled CLI
 * (dist/punchcard.cjs, where every module shares one import.meta.url) alike. The single executable
 * has no checkout: its root is its own folder, and its files are embedded (src/shared/assets.ts).
 */
function findRoot(): URL {
  if (isSea()) return new URL('.', import.meta.url);
  for (let url = new URL('.', import.meta.url); ; url = new URL('..', url)) {
    if (existsSync(new URL('package.json', url))) return url;
    if (url.pathname === '/') throw new Error(`no package.json above ${fileURLToPath(import.meta.url)}`);
  }
}

export const ROOT_URL = findRoot();

/** A path inside the checkout, e.g. `rootPath('migrations/')`. */
export const rootPath = (relative: string) => fileURLToPath(new URL(relative, ROOT_URL));
