import { createHash } from 'node:crypto';
import { brotliCompressSync, constants } from 'node:zlib';
import { gzip, readWidgetFiles } from '../../widget/files.ts';
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

/**
 * The widget's files from dist/public/, read once per process. `npm ci` and `npm run build` build
 * them; the server never does (no esbuild at run time). Without a build it answers 503 saying so.
 */
export function widgetAsset(path: string): WidgetAsset | undefined {
  if (!assets) {
    const files = readWidgetFiles();
    if (!files) throw new AppError(503, 'Service Unavailable', 'The widget is not built on this server: run `npm run build` (npm ci does it) and restart.');
    assets = new Map([...files].map(([file, code]) => [file, { code, gzipped: gzip(code), brotli: brotli(code), etag: `"${createHash('sha256').update(code).digest('hex').slice(0, 32)}"` }]));
  }
  return assets.get(path);
}
