import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { getQuery, type H3, type H3Event } from 'h3';
import { widgetBundle } from '../../widget/build.ts';
import { LANGUAGES } from '../../widget/src/strings.ts';
import { TRANSLATIONS } from '../../widget/src/translations.ts';
import { notFound } from '../domain/errors.ts';
import { listProjects } from '../domain/projects.ts';
import { rootPath } from '../root.ts';
import { signWidgetSession } from '../domain/widget-auth.ts';
import type { AppContext } from './context.ts';
import { htmlPolicy } from './security-headers.ts';

const DOCS_DIR = rootPath('docs/');
const DOCS = readdirSync(DOCS_DIR).filter((file) => file.endsWith('.md')).map((file) => file.slice(0, -3));

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** JSON inside a <script>: no "</script>" or "<!--" can close it early. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/** An HTML page under its own policy: only scripts carrying this response's nonce run (no inline handlers). */
const page = (title: string, body: string, headers: Record<string, string> = {}) => {
  const nonce = randomBytes(16).toString('base64');
  return new Response(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)}</title><style>body{font-family:system-ui,sans-serif;max-width:860px;margin:0 auto;padding:24px;line-height:1.5;color:#1f2937}
a{color:#4f46e5}code{background:#f3f4f6;padding:1px 5px;border-radius:4px}.products{display:grid;grid-template-columns:repeat(auto-fill,minmax(180px,1fr));gap:16px}
.product{border:1px solid #e5e7eb;border-radius:12px;padding:16px}.product div{height:90px;border-radius:8px;background:#eef2ff;margin-bottom:8px}
button{font:inherit;padding:8px 14px;border-radius:8px;border:1px solid #4f46e5;background:#fff;color:#4f46e5}</style></head><body>${body.replaceAll('<script', `<script nonce="${nonce}"`)}</body></html>`,
  { headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': htmlPolicy(nonce), ...headers } });
};

const DEMO_MEMBER = 'demo-shopper';

/** The demo shop: signs a member on the server, as a real shop would, and loads the widget. */
function demoPage(event: H3Event, ctx: AppContext): Response {
  const query = getQuery(event) as Record<string, unknown>;
  const project = listProjects(ctx.db)[0];
  if (!project) throw notFound('There is no project yet; create one with "punchcard projects create".');
  // Only members whose externalId starts with "demo-": a demo page left on in public can never
  // sign in as one of the shop's real members.
  const externalId = typeof query.member === 'string' && /^[\w.-]{1,64}$/.test(query.member) ? `demo-${query.member}` : DEMO_MEMBER;
  const { header: _header, ...claims } = signWidgetSession(ctx.db, ctx.box, { projectId: project.id, externalId }, ctx.clock());
  const custom = query.mode === 'custom';
  const config = {
    ...claims,
    member: { name: externalId === DEMO_MEMBER ? 'Demo Shopper' : externalId },
    ...(typeof query.language === 'string' && LANGUAGES.includes(query.language) ? { language: query.language } : {}),
    ...(custom ? { displayMode: 'custom' } : {}),
  };
  const products = ['Coffee beans', 'Ceramic mug', 'Pour-over kit', 'Gift card'].map((name) => `<div class="product"><div></div><b>${name}</b></div>`).join('');
  return page('Punchcard demo shop', `<h1>Demo shop</h1>
<p>Signed in as <b>${escapeHtml(externalId)}</b> of project <b>${escapeHtml(project.name)}</b>. The widget below was signed by this server for this page view.
${custom ? 'Custom mode: the page opens the widget itself.' : 'Open it with the button in the corner.'}</p>
${custom ? '<p><button id="open-rewards">My rewards</button> <button id="toggle-rewards">Toggle</button></p>' : ''}
<div class="products">${products}</div>
<pre id="errors" role="log"></pre>
<script src="/widget.js"></script>
<script>
window.demoConfig = Object.assign(${scriptJson(config)}, {
  onReady: function () { document.body.setAttribute('data-ready', String(Date.now())); },
  onError: function (error) { document.getElementById('errors').textContent += error.message + '\\n'; },
  onWelcomeBonus: function (points) { document.body.setAttribute('data-welcome-bonus', String(points)); }
});
Punchcard.init(window.demoConfig);
${custom ? "document.getElementById('open-rewards').addEventListener('click', function () { Punchcard.open(); });\ndocument.getElementById('toggle-rewards').addEventListener('click', function () { Punchcard.toggle(); });" : ''}
</script>`, { 'cache-control': 'no-store' });
}

function indexPage(demo: boolean): Response {
  const docs = DOCS.map((name) => `<li><a href="/docs/${name}">${name}</a></li>`).join('');
  return page('Punchcard', `<h1>Punchcard is running</h1>
<p>Self-hosted loyalty and gamification. The server API lives under <code>/api/v1</code>, the widget API under <code>/api/widget</code>,
and the widget script at <a href="/widget.js"><code>/widget.js</code></a>.</p>
${demo ? '<p>See the widget working on the <a href="/demo">demo shop page</a>.</p>' : ''}
<h2>Documentation</h2><ul>${docs}</ul>`);
}

/** Serves the script with a strong ETag; gzipped when the browser takes it. */
async function widgetScript(event: H3Event): Promise<Response> {
  const bundle = await widgetBundle();
  const headers = {
    'content-type': 'text/javascript; charset=utf-8',
    etag: bundle.etag,
    // Unversioned URL: browsers revalidate after 5 minutes (a 304 when unchanged), so a new
    // release reaches every shop quickly; a stale copy may serve a day while revalidating.
    'cache-control': 'public, max-age=300, stale-while-revalidate=86400',
    'cross-origin-resource-policy': 'cross-origin',
    vary: 'Accept-Encoding',
  };
  if (event.req.headers.get('if-none-match')?.split(/\s*,\s*/).includes(bundle.etag)) return new Response(null, { status: 304, headers });
  const gzip = /\bgzip\b/.test(event.req.headers.get('accept-encoding') ?? '');
  return new Response(new Uint8Array(gzip ? bundle.gzipped : bundle.code), { headers: { ...headers, ...(gzip ? { 'content-encoding': 'gzip' } : {}) } });
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

/** The pages a person opens in a browser: the start page, the docs, the widget script and the demo shop. */
export function mountPages(app: H3, ctx: AppContext, options: { demo: boolean }): void {
  app.get('/', () => indexPage(options.demo));
  app.get('/docs/:name', (event) => {
    const name = event.context.params?.name ?? '';
    if (!DOCS.includes(name)) throw notFound(`No document "${name}"; see / for the list.`);
    return new Response(readFileSync(`${DOCS_DIR}${name}.md`), { headers: { 'content-type': 'text/markdown; charset=utf-8' } });
  });
  app.get('/widget.js', widgetScript);
  app.get('/widget/strings/:file', widgetStrings);
  if (options.demo) app.get('/demo', (event) => demoPage(event, ctx));
}
