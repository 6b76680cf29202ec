import type { H3 } from 'h3';
import { notFound } from '../shared/errors.ts';
import { hasRootFile, readRootFile } from '../shared/assets.ts';
import type { AppContext } from './context.ts';
import { openApiDocument } from './openapi.ts';
import { DOCS } from './pages.ts';
import type { MountedRoute } from './route.ts';
import { FAVICON_LINK } from './favicon.ts';
import { isAdminRoute } from './admin/api.ts';

export const OPENAPI_PATH = '/api/v1/openapi.json';
const REDOC_PATH = '/docs/assets/redoc.standalone.js';

/** Redoc's standalone bundle, from the package or the executable (never a CDN): read once, on the first visit to /docs. */
const REDOC_FILE = 'node_modules/redoc/bundles/redoc.standalone.js';
/**
 * The one thing the bundle loads from another origin: the logo beside "API docs by Redocly" in its
 * sidebar, from Redoc's CDN. The page's policy refuses it (and the browser logs that): served with
 * an empty image in its place, so the page asks nothing of another origin.
 */
const CDN_LOGO = 'https://cdn.redoc.ly/redoc/logo-mini.svg';
const EMPTY_IMAGE = "data:image/svg+xml,%3Csvg xmlns='http://www.w3.org/2000/svg'/%3E";
let redoc: Buffer | undefined;
const redocScript = () => {
  if (!redoc && hasRootFile(REDOC_FILE)) redoc = Buffer.from(readRootFile(REDOC_FILE).toString('utf8').replaceAll(CDN_LOGO, EMPTY_IMAGE));
  return redoc;
};

/**
 * The reference page's own CSP: this server's scripts (Redoc, no inline script), Redoc's inline
 * styles and its search worker (a blob), the document fetched from here; never framed.
 */
const DOCS_CSP = "default-src 'none'; script-src 'self'; worker-src blob:; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' data:; "
  + "font-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

const referencePage = () => {
  const guides = DOCS.map((name) => `<a href="/docs/${name}">${name}</a>`).join(' · ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">${FAVICON_LINK}
<title>Punchcard API reference</title><style>body{margin:0;font-family:system-ui,sans-serif}nav{padding:10px 20px;border-bottom:1px solid #e5e7eb;font-size:14px}
nav a{color:#4f46e5}</style></head><body>
<nav aria-label="Guides"><b><a href="/">Punchcard</a></b> · API reference · <a href="${OPENAPI_PATH}">openapi.json</a> · Guides: ${guides}</nav>
<redoc spec-url="${OPENAPI_PATH}" hide-download-button="false"></redoc>
<script src="${REDOC_PATH}"></script>
</body></html>`;
};

/**
 * GET /api/v1/openapi.json (public): the document of every mounted route, made once per server
 * URL. GET /docs: the API reference Redoc renders from it, beside links to the guides (/docs/NAME).
 */
export function mountApiDocs(app: H3, ctx: AppContext, mounted: MountedRoute[]): void {
  // The admin's surface is its own app's private API, not one for integrations: it is left out (docs/admin.md).
  const routes = mounted.filter((route) => !isAdminRoute(route));
  let cached: { url: string; text: string } | undefined;
  const documentText = () => {
    const url = ctx.publicUrl();
    if (cached?.url !== url) cached = { url, text: JSON.stringify(openApiDocument(routes, url)) };
    return cached.text;
  };
  app.get(OPENAPI_PATH, () => new Response(documentText(), {
    headers: { 'content-type': 'application/json; charset=utf-8', 'access-control-allow-origin': '*', 'cache-control': 'no-cache' },
  }), { meta: { answers: 'document' } }); // the one /api/ path outside the route helper: it describes the routes, it is none of them
  app.get('/docs', () => new Response(referencePage(), {
    headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': DOCS_CSP, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' },
  }));
  app.get(REDOC_PATH, () => {
    const script = redocScript();
    if (!script) throw notFound('The API reference renderer (the redoc package) is not installed beside this server; the document is at /api/v1/openapi.json.');
    return new Response(new Uint8Array(script), { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=86400' } });
  });
}
