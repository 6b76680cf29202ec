import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSize, gzip, readWidgetFiles, scriptVersion, WIDGET_BUDGET_BYTES, WIDGET_SCRIPT } from '../widget/files.ts';
import { CHUNKS } from '../widget/src/chunks.ts';
import { EN, KEYS, LANGUAGES } from '../widget/src/strings.ts';
import { TRANSLATIONS } from '../widget/src/translations.ts';
import { startServer } from '../src/server.ts';
import { client } from './helpers/http.ts';
import { startTestServer, TEST_MASTER_KEY, type TestServer } from './helpers/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer({ demo: true });
});
afterAll(() => server.stop());

const placeholders = (text: string) => [...text.matchAll(/\{(\w)\}/g)].map((m) => m[1]).sort();

describe('widget strings', () => {
  it('has every string in all 13 languages, with the same placeholders as English', () => {
    expect(Object.keys(TRANSLATIONS).sort()).toEqual([...LANGUAGES].sort());
    const english = EN.split('|');
    expect(english).toHaveLength(KEYS.length);
    for (const [language, line] of Object.entries(TRANSLATIONS)) {
      const words = line.split('|');
      expect(words, language).toHaveLength(KEYS.length);
      words.forEach((word, i) => {
        expect(word.trim(), `${language} ${KEYS[i]}`).not.toBe('');
        expect(placeholders(word), `${language} ${KEYS[i]}`).toEqual(placeholders(english[i]!));
      });
    }
  });
});

describe('GET /widget.js', () => {
  it('stays within its size budget; every seldom-opened panel is a chunk of its own, served beside it', async () => {
    const files = readWidgetFiles()!; // built by the test run's global setup, as by npm ci
    console.log(describeSize(files));
    // The budget is what every page loads: widget.js alone. The chunks come when their panel is first shown.
    expect(gzip(files.get(WIDGET_SCRIPT)!).length).toBeLessThanOrEqual(WIDGET_BUDGET_BYTES);
    const chunks = [...files.keys()].filter((path) => path !== WIDGET_SCRIPT);
    expect(chunks.map((path) => path.replace(/\.[0-9a-f]{8}\.js$/, '')).sort()).toEqual(Object.keys(CHUNKS).map((name) => `widget/${name}`).sort());
    const main = files.get(WIDGET_SCRIPT)!.toString();
    const api = client(server.url);
    for (const path of chunks) {
      const [, name, hash] = /^widget\/(\w+)\.([0-9a-f]{8})\.js$/.exec(path)!;
      // widget.js names each chunk by its hash, so a new release never gets an old chunk from a cache.
      expect(main).toContain(`${name}:"${hash}"`);
      const chunk = await api.get(`/${path}`, { headers: { 'accept-encoding': 'identity' } });
      expect(chunk.status, path).toBe(200);
      expect(chunk.headers['content-type']).toBe('text/javascript; charset=utf-8');
      expect(chunk.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(chunk.headers['cross-origin-resource-policy']).toBe('cross-origin');
      expect(chunk.headers['x-content-type-options']).toBe('nosniff');
      expect(Buffer.from(chunk.text)).toEqual(files.get(path));
      // One Preact: a chunk takes it from widget.js instead of carrying a copy.
      expect(chunk.text).not.toContain('http://www.w3.org/2000/svg');
      const gzipped = await api.get(`/${path}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(gzipped.headers['content-encoding']).toBe('gzip');
      expect((await api.get(`/${path}`, { headers: { 'if-none-match': gzipped.headers.etag as string } })).status).toBe(304);
    }
    expect((await api.get('/widget/games.00000000.js')).status).toBe(404);
    expect((await api.get('/widget/widget.js')).status).toBe(404);
  });

  it('serves one minified script with an ETag, cache headers, brotli or gzip and 304 on revalidation', async () => {
    const api = client(server.url);
    const plain = await api.get('/widget.js', { headers: { 'accept-encoding': 'identity' } });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-type']).toBe('text/javascript; charset=utf-8');
    expect(plain.headers['cache-control']).toBe('public, max-age=300, stale-while-revalidate=86400');
    expect(plain.text).toContain('Punchcard');
    expect(Buffer.byteLength(plain.text)).toBe(readWidgetFiles()!.get(WIDGET_SCRIPT)!.length);
    const etag = plain.headers.etag as string;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const gzip = await api.get('/widget.js', { headers: { 'accept-encoding': 'gzip' } });
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(gzip.headers.etag).toBe(etag);
    // Brotli when the browser takes it (every current one does over https); fetch decodes it to the same script.
    const brotli = await fetch(`${server.url}/widget.js`, { headers: { 'accept-encoding': 'gzip, deflate, br' } });
    expect(brotli.headers.get('content-encoding')).toBe('br');
    expect(brotli.headers.get('etag')).toBe(etag);
    expect(await brotli.text()).toBe(plain.text);
    const again = await api.get('/widget.js', { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.text).toBe('');
  });

  it('lets the current version of widget.js be cached for a year, and serves any other version briefly', async () => {
    const api = client(server.url);
    const version = scriptVersion(readWidgetFiles()!.get(WIDGET_SCRIPT)!);
    const pinned = await api.get(`/widget.js?v=${version}`, { headers: { 'accept-encoding': 'identity' } });
    expect(pinned.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(Buffer.byteLength(pinned.text)).toBe(readWidgetFiles()!.get(WIDGET_SCRIPT)!.length);
    // A page still pinned to an older release gets the current script, and looks again soon.
    const old = await api.get('/widget.js?v=00000000');
    expect(old.status).toBe(200);
    expect(old.headers['cache-control']).toBe('public, max-age=300, stale-while-revalidate=86400');
  });

  it('serves each language\'s strings to any origin, and 404 for a language it does not have', async () => {
    const api = client(server.url);
    const fr = await api.get('/widget/strings/fr.json');
    expect(fr.status).toBe(200);
    expect(fr.headers['access-control-allow-origin']).toBe('*');
    expect(fr.body).toEqual({ language: 'fr', strings: TRANSLATIONS.fr });
    expect((await api.get('/widget/strings/zh-CN.json')).body.language).toBe('zh-CN');
    const missing = await api.get('/widget/strings/xx.json');
    expect(missing.status).toBe(404);
    expect(missing.body.message).toMatch(/no language "xx"/);
  });
});

describe('GET / and GET /demo', () => {
  it('answers a start page linking to the demo and the docs, and renders the docs as HTML whose links work here', async () => {
    const api = client(server.url);
    const home = await api.get('/');
    expect(home.status).toBe(200);
    expect(home.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(home.text).toContain('href="/demo"');
    expect(home.text).toContain('href="/docs/widget"');
    const doc = await api.get('/docs/widget');
    expect(doc.status).toBe(200);
    expect(doc.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(doc.headers['content-security-policy']).toMatch(/default-src 'none'/);
    expect(doc.headers['content-security-policy']).not.toMatch(/script-src/);
    expect(doc.text).toContain('<h1 id="the-embeddable-widget">The embeddable widget</h1>');
    expect(doc.text).toMatch(/<table>/);
    // Markdown inside code stays text: the page never gets a <script> from a code sample.
    expect(doc.text).toContain('&lt;script src=&quot;https://loyalty.example.com/widget.js&quot;&gt;&lt;/script&gt;');
    // Every relative link points at a page this server answers, anchors included.
    for (const name of ['widget', 'production', 'catalog', 'operations', 'api', 'cli']) {
      const html = (await api.get(`/docs/${name}`)).text;
      const links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!).filter((href) => !/^(https?:|mailto:)/.test(href));
      expect(links.filter((href) => href.endsWith('.md') || href.includes('.md#')), name).toEqual([]);
      for (const href of links) {
        const [path, anchor] = href.split('#');
        const target = path === '' ? html : (await api.get(path!)).text;
        if (path !== '') expect((await api.get(path!)).status, `${name}: ${href}`).toBe(200);
        if (anchor) expect(target, `${name}: ${href}`).toContain(`id="${anchor}"`);
      }
    }
    expect((await api.get('/docs/punchcard.service')).headers['content-type']).toBe('text/plain; charset=utf-8');
    expect((await api.get('/docs/..%2Fpackage')).status).toBe(404);
  });

  it('signs a demo member of the demo project on the server, escaping whatever the query says', async () => {
    const demo = await client(server.url).get('/demo?member=<script>&language=de');
    expect(demo.status).toBe(200);
    expect(demo.headers['cache-control']).toBe('no-store');
    const nonce = /<script nonce="([^"]+)">/.exec(demo.text)![1]!;
    expect(demo.headers['content-security-policy']).toContain(`script-src 'self' 'nonce-${nonce}'`);
    expect(demo.text).not.toContain('<script>&');
    const config = JSON.parse(/Object\.assign\((\{.*?\}), \{/s.exec(demo.text)![1]!);
    expect(config).toMatchObject({
      publicKey: server.demoProject!.publishableKey, externalId: 'demo-shopper', language: 'de', signature: expect.stringMatching(/^[0-9a-f]{64}$/),
      member: JSON.stringify({ name: 'Demo Shopper' }),
    });
    // Only demo members: a real customer's externalId gets the prefix.
    const other = await client(server.url).get('/demo?member=alice');
    expect(other.text).toContain('"externalId":"demo-alice"');
  });

  it('is not served without --demo, even on loopback', async () => {
    const off = await startServer({ db: `${server.dir}/off.db`, port: 0, host: '127.0.0.1', logLevel: 'silent', scheduler: false, masterKey: TEST_MASTER_KEY });
    try {
      expect((await client(off.url).get('/demo')).status).toBe(404);
      expect((await client(off.url).get('/')).text).not.toContain('href="/demo"');
    } finally {
      await off.close();
    }
  });
});
