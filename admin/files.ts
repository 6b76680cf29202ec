import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { isSingleExecutable, readRootFile, rootFileNames } from '../src/shared/assets.ts';
import { rootPath } from '../src/shared/root.ts';

/** The admin's JavaScript, gzipped: all of it, and what the first page an operator opens loads. */
export const ADMIN_BUDGET_BYTES = { total: 120 * 1024, firstPage: 60 * 1024 } as const;

/** The admin's files by their path under the server's root (dist/public/): `admin/index.html`, `admin/assets/…`. */
export type AdminFiles = Map<string, Buffer>;

/** The app's HTML (every /admin path that is not an asset), and the widget preview's page (the iframe of the Widget and Catalog pages). */
export const ADMIN_HTML = 'admin/index.html';
export const PREVIEW_HTML = 'admin/preview.html';
/** What the build knew about its scripts: which a page loads, so the budget can be checked without building again. */
export const ADMIN_MANIFEST = 'admin/manifest.json';
export const ADMIN_ASSETS = 'admin/assets/';

export interface AdminManifest {
  /** The entry script, as served under /admin/assets/. */
  entry: string;
  /** Per page (its module's name), every script it needs beyond the entry's, and the entry's own static imports under "entry". */
  pages: Record<string, string[]>;
  /** The pages an operator may see first: signing in, or the Overview when a session is live. */
  firstPages: string[];
}

const BUILT_DIR = rootPath('dist/public/');

/** The built admin's files (HTML, manifest and assets), or null when there is no build. */
export function readAdminFiles(dir = BUILT_DIR): AdminFiles | null {
  if (dir === BUILT_DIR && isSingleExecutable()) {
    const names = [...rootFileNames('dist/public/admin/').map((name) => `admin/${name}`), ...rootFileNames(`dist/public/${ADMIN_ASSETS}`).map((name) => `${ADMIN_ASSETS}${name}`)];
    return names.includes(ADMIN_HTML) ? new Map(names.sort().map((path) => [path, readRootFile(`dist/public/${path}`)])) : null;
  }
  if (!existsSync(join(dir, ADMIN_HTML))) return null;
  const names = ['admin', 'admin/assets'].flatMap((folder) => readdirSync(join(dir, folder), { withFileTypes: true })
    .filter((entry) => entry.isFile()).map((entry) => `${folder}/${entry.name}`));
  return new Map(names.sort().map((path) => [path, readFileSync(join(dir, path))]));
}

const gzipped = (code: Buffer) => gzipSync(code, { level: 9 }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** Gzipped bytes of every script, of the entry with each page, and of the heaviest first page: what the budget limits. */
export function adminSizes(files: AdminFiles) {
  const manifest = JSON.parse(files.get(ADMIN_MANIFEST)!.toString('utf8')) as AdminManifest;
  const scripts = [...files].filter(([path]) => path.startsWith(ADMIN_ASSETS) && path.endsWith('.js'));
  const size = new Map(scripts.map(([path, code]) => [path.slice(ADMIN_ASSETS.length), gzipped(code)]));
  const sum = (names: string[]) => [...new Set(names)].reduce((total, name) => total + (size.get(name) ?? 0), 0);
  const shell = [manifest.entry, ...manifest.pages.entry!];
  const pages = Object.fromEntries(Object.entries(manifest.pages).filter(([page]) => page !== 'entry')
    .map(([page, names]) => [page, sum([...shell, ...names])]));
  return {
    total: sum([...size.keys()]),
    entry: sum(shell),
    pages,
    firstPage: Math.max(...manifest.firstPages.map((page) => pages[page] ?? 0)),
    scripts: Object.fromEntries(size),
  };
}

/** The size report of `npm run admin:size` (and the build test's log). */
export function describeAdminSize(files: AdminFiles): string {
  const sizes = adminSizes(files);
  return [
    `admin JavaScript: ${kb(sizes.total)} gzipped in total (budget ${kb(ADMIN_BUDGET_BYTES.total)})`,
    `first page: ${kb(sizes.firstPage)} gzipped (budget ${kb(ADMIN_BUDGET_BYTES.firstPage)}); the shell alone ${kb(sizes.entry)}`,
    ...Object.entries(sizes.pages).map(([page, bytes]) => `  ${page}: ${kb(bytes)} with the shell`),
    ...Object.entries(sizes.scripts).map(([name, bytes]) => `    ${name}: ${kb(bytes)}`),
  ].join('\n');
}
