import { brotliCompressSync, constants } from 'node:zlib';
import { contentHash, gzip, readWidgetFiles, scriptVersion, WIDGET_SCRIPT } from '../../widget/files.ts';
import { AppError } from '../shared/errors.ts';

/** A widget file as the server sends it: compressed once both ways (brotli is about a sixth smaller), with a strong ETag. */
export interface WidgetAsset {
  code: Buffer;
  gzipped: Buffer;
  brotli: Buffer;
  etag: string;
}

const brotli = (code: Buffer) => brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: code.length } });

let assets: Map<string, WidgetAsset> | undefined;
let version: string | undefined;

/**
 * The widget's files from dist/public/, read once per process. `npm ci` and `npm run build` build
 * them; the server never does (no esbuild at run time). Without a build it answers 503 saying so.
 */
export function widgetAsset(path: string): WidgetAsset | undefined {
  if (!assets) {
    const files = readWidgetFiles();
    if (!files) throw new AppError(503, 'Service Unavailable', 'The widget is not built on this server: run `npm run build` (npm ci does it) and restart.');
    assets = new Map([...files].map(([file, code]) => [file, { code, gzipped: gzip(code), brotli: brotli(code), etag: `"${contentHash(code).slice(0, 32)}"` }]));
  }
  return assets.get(path);
}

/** The current build's version of widget.js (`/widget.js?v=…`, cached for a year). */
export const widgetVersion = (): string => {
  version ??= scriptVersion(widgetAsset(WIDGET_SCRIPT)!.code);
  return version;
};
