import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { isSingleExecutable, readRootFile, rootFileNames } from '../src/shared/assets.ts';
import { rootPath } from '../src/shared/root.ts';

/** The size budget of widget.js, gzipped: what every page loads before the widget shows. */
export const WIDGET_BUDGET_BYTES = 15 * 1024;

/** The main script's name; chunks are `widget/<name>.<hash>.js`, beside it. */
export const WIDGET_SCRIPT = 'widget.js';

/** The widget's files by their path under the server's root: widget.js first, then its chunks. */
export type WidgetFiles = Map<string, Buffer>;

/** Where `npm run build` (and so `npm ci`) puts the widget; the server only reads it from here. */
export const BUILT_WIDGET_DIR = rootPath('dist/public/');

/** The built widget's files, or null when there is no build in `dir`. */
export function readWidgetFiles(dir = BUILT_WIDGET_DIR): WidgetFiles | null {
  if (dir === BUILT_WIDGET_DIR && isSingleExecutable()) return embeddedWidgetFiles();
  if (!existsSync(join(dir, WIDGET_SCRIPT))) return null;
  const chunks = existsSync(join(dir, 'widget')) ? readdirSync(join(dir, 'widget')).filter((name) => name.endsWith('.js')).sort() : [];
  return new Map([WIDGET_SCRIPT, ...chunks.map((name) => `widget/${name}`)].map((path) => [path, readFileSync(join(dir, path))]));
}

/** The single executable carries the build as assets named by their path, `dist/public/widget.js`... */
function embeddedWidgetFiles(): WidgetFiles {
  const chunks = rootFileNames('dist/public/widget/').filter((name) => name.endsWith('.js')).sort();
  return new Map([WIDGET_SCRIPT, ...chunks.map((name) => `widget/${name}`)].map((path) => [path, readRootFile(`dist/public/${path}`)]));
}

/**
 * Writes `files` into `dir`, replacing what was there as a whole: written beside, then renamed
 * into place, so a server reading meanwhile finds the old build or the new one, never a mix.
 */
export function writeWidgetFiles(files: WidgetFiles, dir = BUILT_WIDGET_DIR): void {
  const target = dir.replace(/\/+$/, '');
  const temp = `${target}.build-${process.pid}`;
  const old = `${target}.old-${process.pid}`;
  rmSync(temp, { recursive: true, force: true });
  for (const [path, code] of files) {
    mkdirSync(dirname(join(temp, path)), { recursive: true });
    writeFileSync(join(temp, path), code);
  }
  if (existsSync(target)) renameSync(target, old);
  renameSync(temp, target);
  rmSync(old, { recursive: true, force: true });
}

/** A file's SHA-256 in hex: its ETag, and widget.js's version (`scriptVersion`). */
export const contentHash = (code: Buffer) => createHash('sha256').update(code).digest('hex');

/** A script's version: its hash's first 8 hex digits (`widget.js?v=…`, and each chunk's file name). */
export const scriptVersion = (code: Buffer) => contentHash(code).slice(0, 8);

export const gzip = (code: Buffer) => gzipSync(code, { level: 9 });

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

/** One line for widget.js against its budget, and one per chunk. */
export const describeSize = (files: WidgetFiles) => [...files].map(([path, code]) => (path === WIDGET_SCRIPT
  ? `${path}: ${kb(code.length)} minified, ${kb(gzip(code).length)} gzipped (budget ${WIDGET_BUDGET_BYTES / 1024} KB)`
  : `  ${path}: ${kb(code.length)} minified, ${kb(gzip(code).length)} gzipped, loaded when its panel is first shown`)).join('\n');
