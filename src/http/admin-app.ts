import type { H3, H3Event } from 'h3';
import { ADMIN_ASSETS, ADMIN_HTML, PREVIEW_HTML, readAdminFiles } from '../../admin/files.ts';
import { AppError, notFound } from '../shared/errors.ts';
import { assetResponse, compressedAsset, type StaticAsset } from './static-asset.ts';

/**
 * The app's policy. Scripts and styles only from this server's files: no inline script, no eval,
 * no inline style. uPlot draws on a canvas and positions its elements through their style
 * properties (CSSOM), which `style-src 'self'` allows, as it does Preact's `style` props; it writes
 * no style attribute or <style> element, so the charts need no 'unsafe-inline' (the browser tests
 * record every policy violation). Trusted Types refuse any string turned into HTML or script.
 * Frames: only the widget preview, from this server; the app itself is never framed.
 */
export const ADMIN_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; frame-src 'self'; "
  + "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'; require-trusted-types-for 'script'";

/**
 * The widget preview's policy: the real widget, which draws its styles into its shadow root with a
 * <style> element and shows reward images from any https address (as on a shop's page), so
 * 'unsafe-inline' styles and https images here, and only here; framed by the admin alone.
 */
export const PREVIEW_POLICY = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' https: data:; connect-src 'self'; "
  + "font-src 'self' https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

const TYPES: Record<string, string> = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' };

let files: Map<string, Buffer> | undefined;
/** Each file's compressed forms, made on its first request (most servers never serve most pages' scripts). */
const compressed = new Map<string, Promise<StaticAsset>>();

/** A file of the built app (dist/public/admin/, read once per process); `npm run build` (and `npm ci`) build it, never the server. */
function adminAsset(path: string): Promise<StaticAsset> | undefined {
  files ??= readAdminFiles() ?? undefined;
  if (!files) throw new AppError(503, 'Service Unavailable', 'The admin is not built on this server: run `npm run build` (npm ci does it) and restart.');
  const code = files.get(path);
  if (!code) return undefined;
  let asset = compressed.get(path);
  if (!asset) {
    asset = compressedAsset(code);
    compressed.set(path, asset);
  }
  return asset;
}

/** The HTML of a page: never cached (a new release names new scripts), never sniffed, its own policy. */
async function html(event: H3Event, path: string, policy: string, framing: string): Promise<Response> {
  return assetResponse(event, (await adminAsset(path))!, {
    'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': policy, 'x-frame-options': framing,
    'cross-origin-opener-policy': 'same-origin',
  });
}

/** A script or stylesheet: its name carries its content hash, so it is cached for a year and never asked for again. */
async function asset(event: H3Event): Promise<Response> {
  const name = event.context.params?.file ?? '';
  const found = /^[\w.-]+\.(js|css)$/.exec(name) ? adminAsset(`${ADMIN_ASSETS}${name}`) : undefined;
  if (!found) throw notFound(`The admin has no file ${name}; it may be from an older release, so reload the page.`);
  return assetResponse(event, await found, {
    'content-type': TYPES[name.slice(name.lastIndexOf('.') + 1)]!, 'cache-control': 'public, max-age=31536000, immutable',
  });
}

/**
 * The operators' app: GET /admin and every /admin/… path answer its HTML (the app shows the page
 * the path names), /admin/assets/<name>.<hash>.js|css its files, /admin/preview the page the
 * widget preview runs in. Its API is /api/admin, mounted with the other surfaces.
 */
export function mountAdminApp(app: H3): void {
  app.get('/admin/assets/:file', asset);
  app.get('/admin/assets/**', (event) => asset(event));
  app.get('/admin/preview', (event) => html(event, PREVIEW_HTML, PREVIEW_POLICY, 'SAMEORIGIN'));
  app.get('/admin', (event) => html(event, ADMIN_HTML, ADMIN_POLICY, 'DENY'));
  app.get('/admin/**', (event) => html(event, ADMIN_HTML, ADMIN_POLICY, 'DENY'));
}
