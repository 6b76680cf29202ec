import { randomBytes } from 'node:crypto';
import { posix } from 'node:path';
import { getQuery, type H3, type H3Event } from 'h3';
import { WIDGET_SCRIPT } from '../../widget/files.ts';
import { LANGUAGES } from '../../widget/src/strings.ts';
import { TRANSLATIONS } from '../../widget/src/translations.ts';
import { notFound } from '../shared/errors.ts';
import { referralLanding } from '../domain/referrals/referrals.ts';
import { demoProject } from '../domain/widget/widget-demo.ts';
import { hasRootFile, readRootFile, rootFileNames } from '../shared/assets.ts';
import { signWidgetSession } from '../domain/widget/widget-auth.ts';
import type { AppContext } from './context.ts';
import { assetResponse } from './static-asset.ts';
import { widgetAsset, widgetVersion } from './widget-assets.ts';
import { FAVICON_LINK, FAVICON_PATH, faviconResponse } from './favicon.ts';
import { escapeHtml } from '../shared/html-text.ts';

const DOCS_DIR = 'docs/';
const DOC_FILES = rootFileNames(DOCS_DIR);
/**
 * Pages outside docs/ that the guides link to, served beside them under /docs: the README (its
 * configuration table) and the benchmark figures, by their path in the checkout.
 */
const LINKED_PAGES: Record<string, string> = { 'README.md': 'readme', 'bench/README.md': 'benchmarks' };
/** What /docs/NAME serves as a rendered page: the checkout's path of each. */
const MARKDOWN = new Map<string, string>([
  ...DOC_FILES.filter((file) => file.endsWith('.md')).map((file): [string, string] => [file.slice(0, -3), `${DOCS_DIR}${file}`]),
  ...Object.entries(LINKED_PAGES).filter(([file]) => hasRootFile(file)).map(([file, name]): [string, string] => [name, file]),
]);
export const DOCS = [...MARKDOWN.keys()];
/** Files the docs link to, served as plain text: the systemd units beside them, the licence. */
const ATTACHMENTS = new Map<string, string>([
  ...DOC_FILES.filter((file) => !file.endsWith('.md')).map((file): [string, string] => [file, `${DOCS_DIR}${file}`]),
  ...(hasRootFile('LICENSE') ? [['LICENSE', 'LICENSE'] as [string, string]] : []),
]);
/**
 * The pictures the guides show (docs/images/*.png, screenshots), served as images at
 * /docs/images/NAME: a folder of their own, so no attachment is ever sent as an image or a picture
 * as text. The executable carries them like the rest of docs/.
 */
const IMAGES_DIR = `${DOCS_DIR}images/`;
const IMAGES = new Set(rootFileNames(IMAGES_DIR).filter((file) => file.endsWith('.png')));
/** Where each served file is, by its path in the checkout: how a relative link in a page finds its target. */
const SERVED = new Map<string, string>([
  ...[...MARKDOWN].map(([name, file]): [string, string] => [file, `/docs/${name}`]),
  ...[...ATTACHMENTS].map(([name, file]): [string, string] => [file, `/docs/${name}`]),
  ...[...IMAGES].map((file): [string, string] => [`${IMAGES_DIR}${file}`, `/docs/images/${file}`]),
]);

/** JSON inside a <script>: no "</script>" or "<!--" can close it early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * Every page's own headers. The CSP lets a page load nothing but its inline style and this
 * server's images, and run no script unless it passes `script` (the demo: /widget.js and one
 * inline script carrying the nonce); no page may be framed.
 */
function pageHeaders(script?: { nonce: string }): Record<string, string> {
  const csp = script
    ? `default-src 'none'; script-src 'self' 'nonce-${script.nonce}'; connect-src 'self'; style-src 'unsafe-inline'; img-src 'self' https: data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`
    : "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
  return { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp, 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
}

const STYLE = `body{font-family:system-ui,sans-serif;max-width:860px;margin:0 auto;padding:24px;line-height:1.5;color:#1f2937}
a{color:#4f46e5}code{background:#f3f4f6;padding:1px 5px;border-radius:4px}pre{background:#f3f4f6;padding:12px;border-radius:8px;overflow-x:auto}pre code{padding:0}
pre:empty{display:none}
table{border-collapse:collapse}td,th{border:1px solid #e5e7eb;padding:4px 8px;text-align:left;vertical-align:top}
.products{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:16px}
.product{border:1px solid #e5e7eb;border-radius:12px;padding:16px}.product div{height:90px;border-radius:8px;background:#eef2ff;margin-bottom:8px}
button{font:inherit;padding:8px 14px;border-radius:8px;border:1px solid #4f46e5;background:#fff;color:#4f46e5}`;

const page = (title: string, body: string, options: { status?: number; headers?: Record<string, string>; script?: { nonce: string } } = {}) =>
  new Response(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">${FAVICON_LINK}
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head><body>${body}</body></html>`,
  { status: options.status ?? 200, headers: { ...pageHeaders(options.script), ...options.headers } });

const DEMO_MEMBER = 'demo-shopper';

/**
 * The demo shop: signs a member of the demo project (the one `seed --demo` made, never a real
 * project) on the server, as a real shop would, and loads the widget.
 */
function demoPage(event: H3Event, ctx: AppContext): Response {
  const query = getQuery(event) as Record<string, unknown>;
  const project = demoProject(ctx.db);
  if (!project) throw notFound('There is no demo project; create it with "punchcard seed --demo".');
  // Only members whose externalId starts with "demo-", and only in the demo project.
  const externalId = typeof query.member === 'string' && /^[\w.-]{1,64}$/.test(query.member) ? `demo-${query.member}` : DEMO_MEMBER;
  const member = { name: externalId === DEMO_MEMBER ? 'Demo Shopper' : externalId };
  const { header: _header, ...claims } = signWidgetSession(ctx.db, ctx.box, { projectId: project.id, externalId, member }, ctx.clock());
  const custom = query.mode === 'custom';
  const config = {
    ...claims,
    ...(typeof query.language === 'string' && LANGUAGES.includes(query.language) ? { language: query.language } : {}),
    ...(custom ? { displayMode: 'custom' } : {}),
  };
  const nonce = randomBytes(16).toString('base64');
  const products = ['Coffee beans', 'Ceramic mug', 'Pour-over kit', 'Gift card'].map((name) => `<div class="product"><div></div><b>${name}</b></div>`).join('');
  return page('Punchcard demo shop', `<h1>Demo shop</h1>
<p>Signed in as <b>${escapeHtml(externalId)}</b> of the demo project <b>${escapeHtml(project.name)}</b> (<code>${escapeHtml(project.id)}</code>).
The widget below was signed by this server for this page view.
${custom ? 'Custom mode: the page opens the widget itself.' : 'Open it with the button in the corner.'}</p>
${custom ? '<p><button id="open-rewards">My rewards</button> <button id="toggle-rewards">Toggle</button></p>' : ''}
<div class="products">${products}</div>
<pre id="errors" role="log"></pre>
<script src="/widget.js"></script>
<script nonce="${nonce}">
window.demoConfig = Object.assign(${scriptJson(config)}, {
  onReady: function () { document.body.setAttribute('data-ready', String(Date.now())); },
  onError: function (error) { document.getElementById('errors').textContent += error.message + '\\n'; },
  onWelcomeBonus: function (points) { document.body.setAttribute('data-welcome-bonus', String(points)); }
});
Punchcard.init(window.demoConfig);
${custom ? `document.getElementById('open-rewards').addEventListener('click', function () { Punchcard.open(); });
document.getElementById('toggle-rewards').addEventListener('click', function () { Punchcard.toggle(); });` : ''}
</script>`, { headers: { 'cache-control': 'no-store' }, script: { nonce } });
}

function indexPage(demo: boolean): Response {
  const docs = DOCS.map((name) => `<li><a href="/docs/${name}">${name}</a></li>`).join('');
  return page('Punchcard', `<h1>Punchcard is running</h1>
<p>Self-hosted loyalty and gamification. The server API lives under <code>/api/v1</code>, the widget API under <code>/api/widget</code>,
and the widget script at <a href="/widget.js"><code>/widget.js</code></a>.</p>
${demo ? '<p>See the widget working on the <a href="/demo">demo shop page</a>.</p>' : ''}
<h2>Documentation</h2><p>The <a href="/docs">API reference</a>, made from <a href="/api/v1/openapi.json">the OpenAPI document</a>.</p><ul>${docs}</ul>`);
}

/** GitHub's heading anchors (lowercase, punctuation dropped, spaces to hyphens), which the docs link to. */
const slug = (text: string) => text.toLowerCase().trim().replace(/<[^>]*>/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

/**
 * Where a link of the page at `page` (its path in the checkout) goes when served here, resolved as
 * in the checkout: in docs/, `api.md#x` → `/docs/api#x`, `../README.md#configuration` →
 * `/docs/readme#configuration`, `punchcard.service` → `/docs/punchcard.service`; absolute URLs and
 * anchors unchanged; null for a file this server does not serve (a source file: the link's text
 * stays, without a link).
 */
function docHref(href: string, page: string): string | null {
  if (/^([a-z][a-z0-9+.-]*:|#|\/)/i.test(href)) return href;
  const [path = '', anchor] = href.split('#', 2);
  const url = SERVED.get(posix.normalize(posix.join(posix.dirname(page), path)));
  return url === undefined ? null : `${url}${anchor === undefined ? '' : `#${anchor}`}`;
}

/**
 * Markdown to HTML with `marked` (GFM tables, code); links made to work on this server, headings given anchors.
 * `marked` is loaded on the first docs page, not at start: building its rules costs every start several milliseconds.
 */
async function renderDoc(markdown: string, page: string): Promise<string> {
  const { Marked } = await import('marked');
  const seen = new Map<string, number>();
  const renderer = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth, text }) {
        const base = slug(text);
        const count = seen.get(base) ?? 0;
        seen.set(base, count + 1);
        return `<h${depth} id="${escapeHtml(count === 0 ? base : `${base}-${count}`)}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link(token) {
        const href = docHref(token.href, page);
        if (href === null) return this.parser.parseInline(token.tokens);
        token.href = href;
        return false;
      },
      image(token) {
        const href = docHref(token.href, page);
        if (href === null) return escapeHtml(token.text);
        token.href = href;
        return false;
      },
    },
  });
  return renderer.parse(markdown, { async: false });
}

/** Each doc rendered once: the files ship with the server and do not change while it runs. */
const renderedDocs = new Map<string, { title: string; html: string }>();
async function docPage(name: string): Promise<Response> {
  let doc = renderedDocs.get(name);
  if (!doc) {
    const file = MARKDOWN.get(name)!;
    const markdown = readRootFile(file).toString('utf8');
    doc = { title: /^#\s+(.+)$/m.exec(markdown)?.[1] ?? name, html: await renderDoc(markdown, file) };
    renderedDocs.set(name, doc);
  }
  return page(`${doc.title} · Punchcard`, `<p><a href="/">Punchcard</a> › docs</p>${doc.html}`);
}

/**
 * `/r/CODE`, the share link of a project without a referral URL: redirects to the project's
 * referral page with `?ref=CODE` once it has one, else a small page with the code to give at sign-up.
 */
function referralPage(db: AppContext['db'], rawCode: string): Response {
  const landing = rawCode.length <= 32 ? referralLanding(db, rawCode) : { found: false as const };
  const headers = { 'cache-control': 'no-store' };
  if (!landing.found) {
    return page('Invitation not found', '<h1>This invitation link is not valid</h1><p>The code may have been replaced by a newer one. Ask your friend for their current link.</p>',
      { status: 404, headers });
  }
  if (landing.redirectTo !== null) return new Response(null, { status: 302, headers: { ...pageHeaders(), ...headers, location: landing.redirectTo } });
  return page(`Your invitation to ${landing.projectName}`, `<h1>You are invited to ${escapeHtml(landing.projectName)}</h1>
<p>Your friend's referral code is <code id="referral-code">${escapeHtml(landing.code)}</code>. Give it when you sign up, and you both earn points.</p>`, { headers });
}

/**
 * Serves one of the widget's files with a strong ETag; brotli or gzip when the browser takes it. widget.js
 * keeps its URL across releases, so browsers revalidate it after 5 minutes (a 304 when unchanged)
 * and a new release reaches every shop quickly; a stale copy may serve a day while revalidating.
 * A chunk's name carries its content hash, so it is cached for a year and never revalidated.
 */
function widgetFile(event: H3Event, path: string): Response {
  const asset = widgetAsset(path);
  if (!asset) throw notFound(`The widget has no file ${path}; it may be from an older release, so reload the page.`);
  return assetResponse(event, asset, {
    'content-type': 'text/javascript; charset=utf-8',
    // widget.js?v=VERSION (the current build's) may be kept a year: a new release has a new version.
    // Another or no version gets the current script, revalidated after 5 minutes.
    'cache-control': path === WIDGET_SCRIPT && getQuery(event).v !== widgetVersion()
      ? 'public, max-age=300, stale-while-revalidate=86400' : 'public, max-age=31536000, immutable',
    'cross-origin-resource-policy': 'cross-origin',
  });
}

/** The widget's strings for one language: public, the same for everyone, cached a day. */
function widgetStrings(event: H3Event): Response {
  const file = event.context.params?.file ?? '';
  const language = file.endsWith('.json') ? file.slice(0, -5) : '';
  // Own keys only: "__proto__" or "constructor" must not find Object.prototype's.
  const strings = Object.hasOwn(TRANSLATIONS, language) ? TRANSLATIONS[language] : undefined;
  if (strings === undefined) throw notFound(`The widget has no language "${language}"; it speaks ${LANGUAGES.join(', ')}.`);
  return new Response(JSON.stringify({ language, strings }), {
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'public, max-age=86400', 'access-control-allow-origin': '*' },
  });
}

/** The pages a person opens in a browser: the start page, the docs, the widget script, share links and the demo shop. */
export function mountPages(app: H3, ctx: AppContext, options: { demo: boolean }): void {
  app.get('/', () => indexPage(options.demo));
  app.get(FAVICON_PATH, faviconResponse);
  app.get('/docs/:name', (event) => {
    const name = event.context.params?.name ?? '';
    if (MARKDOWN.has(name)) return docPage(name);
    const attachment = ATTACHMENTS.get(name);
    if (attachment !== undefined) {
      return new Response(readRootFile(attachment), { headers: { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' } });
    }
    throw notFound(`No document "${name}"; see / for the list.`);
  });
  app.get('/docs/images/:file', (event) => {
    const file = event.context.params?.file ?? '';
    if (!IMAGES.has(file)) throw notFound(`No image "${file}" in the docs.`);
    return new Response(readRootFile(`${IMAGES_DIR}${file}`), {
      headers: { 'content-type': 'image/png', 'x-content-type-options': 'nosniff', 'cache-control': 'public, max-age=86400' },
    });
  });
  app.get('/r/:code', (event) => referralPage(ctx.db, event.context.params?.code ?? ''));
  app.get('/widget.js', (event) => widgetFile(event, WIDGET_SCRIPT));
  // The chunks (widget/<name>.<hash>.js), beside widget.js: the script asks for them relative to its own URL.
  app.get('/widget/:file', (event) => widgetFile(event, `widget/${event.context.params?.file ?? ''}`));
  app.get('/widget/strings/:file', widgetStrings);
  if (options.demo) app.get('/demo', (event) => demoPage(event, ctx));
}
