import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_BUDGET_BYTES, ADMIN_HTML, ADMIN_MANIFEST, adminSizes, describeAdminSize, PREVIEW_HTML, readAdminFiles, type AdminManifest } from '../admin/files.ts';
import { gzip, readWidgetFiles, WIDGET_BUDGET_BYTES, WIDGET_SCRIPT } from '../widget/files.ts';
import { client } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// The operators' app as built (by the test run's global setup, as by npm ci) and served at /admin:
// its size budgets, its HTML's policy and headers, and its assets' caching.

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

/** A Content-Security-Policy as directive → sources. */
const policy = (header: string) => new Map(header.split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...sources]) => [name!, sources]));

const files = () => readAdminFiles()!;
const manifest = () => JSON.parse(files().get(ADMIN_MANIFEST)!.toString()) as AdminManifest;

describe('the admin build', () => {
  it('keeps its JavaScript within budget: 120 KB gzipped in total, 60 KB for the first page; widget.js stays within its own', () => {
    console.log(describeAdminSize(files()));
    const sizes = adminSizes(files());
    expect(sizes.total).toBeLessThanOrEqual(ADMIN_BUDGET_BYTES.total);
    expect(sizes.firstPage).toBeLessThanOrEqual(ADMIN_BUDGET_BYTES.firstPage);
    // Code-split: each page is a script of its own, so the first page loads only its own and the shell's.
    expect(Object.keys(sizes.pages).sort()).toEqual(['audit', 'catalog', 'catalog-item', 'claims', 'invite', 'member', 'members', 'overview', 'settings', 'sign-in', 'widget']);
    expect(sizes.pages['sign-in']!).toBeLessThan(sizes.pages.overview!);
    expect(sizes.firstPage).toBeLessThan(sizes.total);
    // The preview runs the real widget.js: the admin carries no copy of it, and widget.js keeps its budget.
    expect(gzip(readWidgetFiles()!.get(WIDGET_SCRIPT)!).length).toBeLessThanOrEqual(WIDGET_BUDGET_BYTES);
    for (const [path, code] of files()) if (path.endsWith('.js')) expect(code.toString(), path).not.toContain('Punchcard.init: missing');
  });

  it('names every script and stylesheet by its content hash, and its HTML loads only those, with no inline script or style', () => {
    const assets = [...files().keys()].filter((path) => path.startsWith('admin/assets/'));
    expect(assets.length).toBeGreaterThan(3);
    for (const path of assets) expect(path).toMatch(/^admin\/assets\/[\w-]+\.[A-Z0-9]{8}\.(js|css)$/);
    for (const page of [ADMIN_HTML, PREVIEW_HTML]) {
      const html = files().get(page)!.toString();
      expect(html, page).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
      expect(html, page).not.toMatch(/<style|\sstyle=|\son\w+=/);
      for (const [, src] of html.matchAll(/(?:src|href)="\/admin\/assets\/([^"]+)"/g)) expect(files().has(`admin/assets/${src}`), src).toBe(true);
    }
    expect(files().get(ADMIN_HTML)!.toString()).toContain(`<script type="module" src="/admin/assets/${manifest().entry}"></script>`);
    expect(files().get(PREVIEW_HTML)!.toString()).toContain('<script src="/widget.js" defer></script>');
  });
});

describe('GET /admin', () => {
  it('answers the app\'s HTML at /admin and every client route below it, never cached, under a strict policy', async () => {
    const api = client(server.url);
    const html = files().get(ADMIN_HTML)!.toString();
    for (const path of ['/admin', '/admin/', '/admin/sign-in', '/admin/projects/prj_x/members/alice?search=a', '/admin/invite/abc']) {
      const res = await api.get(path, { headers: { 'accept-encoding': 'identity' } });
      expect(res.status, path).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.text).toBe(html);
      const csp = policy(res.headers['content-security-policy'] as string);
      expect(csp.get('default-src')).toEqual(["'self'"]);
      expect(csp.get('script-src')).toEqual(["'self'"]);
      // uPlot styles through CSSOM, which 'self' allows: no 'unsafe-inline' styles in the app (the browser test records violations).
      expect(csp.get('style-src')).toEqual(["'self'"]);
      expect(csp.get('img-src')).toEqual(["'self'", 'data:']);
      expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
      expect(csp.get('object-src')).toEqual(["'none'"]);
      expect(csp.get('base-uri')).toEqual(["'none'"]);
      expect(csp.get('require-trusted-types-for')).toEqual(["'script'"]);
      expect([...csp.values()].flat()).not.toContain("'unsafe-eval'");
    }
  });

  it('serves each hashed asset for a year, compressed, with 304 on revalidation; an unknown one is a 404, never the HTML', async () => {
    const api = client(server.url);
    const entry = manifest().entry;
    const plain = await api.get(`/admin/assets/${entry}`, { headers: { 'accept-encoding': 'identity' } });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(plain.text)).toEqual(files().get(`admin/assets/${entry}`));
    const gzipped = await api.get(`/admin/assets/${entry}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gzipped.headers['content-encoding']).toBe('gzip');
    expect((await api.get(`/admin/assets/${entry}`, { headers: { 'if-none-match': plain.headers.etag as string } })).status).toBe(304);
    const css = [...files().keys()].find((path) => path.endsWith('.css'))!;
    expect((await api.get(`/${css}`)).headers['content-type']).toBe('text/css; charset=utf-8');
    for (const path of ['/admin/assets/main.00000000.js', '/admin/assets/nested/x.js', '/admin/assets/manifest.json', '/admin/assets/']) {
      const res = await api.get(path);
      expect(res.status, path).toBe(404);
      expect(res.headers['content-type'], path).toContain('application/json');
    }
  });

  it('serves the widget preview\'s page, which only the admin may frame', async () => {
    const res = await client(server.url).get('/admin/preview', { headers: { 'accept-encoding': 'identity' } });
    expect(res.status).toBe(200);
    expect(res.text).toBe(files().get(PREVIEW_HTML)!.toString());
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    const csp = policy(res.headers['content-security-policy'] as string);
    expect(csp.get('frame-ancestors')).toEqual(["'self'"]);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('connect-src')).toEqual(["'self'"]);
  });
});
