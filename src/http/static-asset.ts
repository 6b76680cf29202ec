import type { H3Event } from 'h3';
import { promisify } from 'node:util';
import { brotliCompress, brotliCompressSync, constants, gzip as gzipCallback } from 'node:zlib';
import { contentHash, gzip } from '../../widget/files.ts';

/** A built file as the server sends it (the widget's scripts, the admin's assets): compressed once both ways (brotli is about a sixth smaller), with a strong ETag. */
export interface StaticAsset {
  code: Buffer;
  gzipped: Buffer;
  brotli: Buffer;
  etag: string;
}

const brotliOptions = (code: Buffer) => ({ params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: code.length } });
const etag = (code: Buffer) => `"${contentHash(code).slice(0, 32)}"`;

export const staticAsset = (code: Buffer): StaticAsset => ({ code, gzipped: gzip(code), brotli: brotliCompressSync(code, brotliOptions(code)), etag: etag(code) });

const brotliAsync = promisify(brotliCompress);
const gzipAsync = promisify(gzipCallback);

/**
 * The same, compressed on libuv's threads: the admin's scripts take about a second of brotli
 * together (uPlot's page a third of it), which must not hold up the requests that come meanwhile.
 */
export async function compressedAsset(code: Buffer): Promise<StaticAsset> {
  const [gzipped, brotli] = await Promise.all([gzipAsync(code, { level: 9 }), brotliAsync(code, brotliOptions(code))]);
  return { code, gzipped, brotli, etag: etag(code) };
}

/** The asset with `headers` (its type and caching): 304 when the browser holds this version, else brotli or gzip when it takes them. */
export function assetResponse(event: H3Event, asset: StaticAsset, headers: Record<string, string>): Response {
  const all = { ...headers, etag: asset.etag, vary: 'Accept-Encoding' };
  if (event.req.headers.get('if-none-match')?.split(/\s*,\s*/).includes(asset.etag)) return new Response(null, { status: 304, headers: all });
  const accepted = event.req.headers.get('accept-encoding') ?? '';
  const [body, encoding] = /\bbr\b/.test(accepted) ? [asset.brotli, 'br'] : /\bgzip\b/.test(accepted) ? [asset.gzipped, 'gzip'] : [asset.code, null];
  return new Response(new Uint8Array(body), { headers: { ...all, ...(encoding ? { 'content-encoding': encoding } : {}) } });
}
