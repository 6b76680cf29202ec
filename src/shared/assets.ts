import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as sea from 'node:sea';
import { runInThisContext } from 'node:vm';
import { rootPath } from './root.ts';

/**
 * Files the program reads from its own checkout (package.json, docs/, dist/public/, dist/relay.*):
 * from the folder in a checkout, from the assets embedded in the executable when it runs as the
 * single executable (`npm run build:binary`), which has no folder beside it to read.
 */
export const isSingleExecutable = (): boolean => sea.isSea();

/** The embedded assets' names (the build writes them as `manifest.json`): @types/node 20 lacks getAssetKeys(). */
let manifest: string[] | undefined;
const embeddedNames = (): string[] => {
  manifest ??= JSON.parse(sea.getAsset('manifest.json', 'utf8')) as string[];
  return manifest;
};

/** A file by its path in the checkout, e.g. `docs/api.md`. */
export function readRootFile(relative: string): Buffer<ArrayBuffer> {
  return isSingleExecutable() ? Buffer.from(sea.getAsset(relative)) : readFileSync(rootPath(relative));
}

/** Whether the checkout (or the executable) holds `relative`. */
export function hasRootFile(relative: string): boolean {
  if (isSingleExecutable()) return embeddedNames().includes(relative);
  return existsSync(rootPath(relative));
}

/**
 * A CommonJS bundle embedded as an asset (e.g. `dist/listhen.cjs`), run once and its exports
 * returned: code that only some commands need stays out of the main script every start compiles.
 * It may require Node's own modules only.
 */
export function embeddedModule(relative: string): unknown {
  const code = readRootFile(relative).toString('utf8');
  const wrapper: unknown = runInThisContext(`(function (module, exports, require) {${code}\n})`, { filename: relative });
  if (typeof wrapper !== 'function') throw new Error(`${relative} is not a module`);
  const module = { exports: {} };
  wrapper(module, module.exports, createRequire(import.meta.url));
  return module.exports;
}

/** The names of the files directly in a folder of the checkout, e.g. `rootFileNames('docs/')`; none for a folder it lacks. */
export function rootFileNames(folder: string): string[] {
  if (!isSingleExecutable()) {
    if (!existsSync(rootPath(folder))) return [];
    return readdirSync(rootPath(folder), { withFileTypes: true }).filter((entry) => entry.isFile()).map((entry) => entry.name);
  }
  return embeddedNames().filter((name) => name.startsWith(folder) && !name.slice(folder.length).includes('/')).map((name) => name.slice(folder.length));
}

/** This release's version, from package.json: the CLI's --version, /healthz and the OpenAPI document. */
export const VERSION: string = (JSON.parse(readRootFile('package.json').toString('utf8')) as { version: string }).version;
