import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { brokenDocLinks } from './helpers/docs.ts';
import { request } from './helpers/http.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

// The guides as the server shows them at /docs: every link works there, the README and the
// benchmark figures the guides point to included (test/binary.test.ts checks the executable's).

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.stop());

describe('the guides served at /docs', () => {
  it('link only to pages and anchors this server serves', async () => {
    expect(await brokenDocLinks(server.url)).toEqual([]);
  });

  it('serve the README and the benchmark figures the guides link to, with their own links made to work here', async () => {
    const operations = await request(server.url, 'GET', '/docs/operations');
    expect(operations.text).toContain('<a href="/docs/readme#configuration">README</a>');
    const production = await request(server.url, 'GET', '/docs/production');
    expect(production.text).toContain('href="/docs/benchmarks#other-figures"');
    expect(production.text).toContain('href="/docs/punchcard-backup.timer"');
    const readme = await request(server.url, 'GET', '/docs/readme');
    expect(readme.status).toBe(200);
    expect(readme.text).toContain('<h2 id="configuration">Configuration</h2>');
    expect(readme.text).toContain('<a href="/docs/api">docs/api.md</a>');
    expect(readme.text).toContain('<a href="/docs/LICENSE">LICENSE</a>');
    const licence = await request(server.url, 'GET', '/docs/LICENSE');
    expect(licence.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(licence.text).toMatch(/^MIT License\n\nCopyright \(c\) 2026 the Punchcard authors/);
    expect((await request(server.url, 'GET', '/docs/benchmarks')).status).toBe(200);
  });

  it('show the screenshots of docs/images/ as PNG images, small, and nothing else from there', async () => {
    const admin = await request(server.url, 'GET', '/docs/admin');
    const sources = [...admin.text.matchAll(/<img src="([^"]+)" alt="([^"]+)"/g)].map(([, src, alt]) => ({ src: src!, alt: alt! }));
    expect(sources.map(({ src }) => src)).toEqual(expect.arrayContaining(['/docs/images/admin-overview.png', '/docs/images/admin-widget.png']));
    for (const { src, alt } of sources) {
      expect(alt.length, src).toBeGreaterThan(20);
      const image = await fetch(`${server.url}${src}`);
      expect(image.headers.get('content-type')).toBe('image/png');
      expect(image.headers.get('x-content-type-options')).toBe('nosniff');
      const bytes = Buffer.from(await image.arrayBuffer());
      expect(bytes.subarray(0, 8).toString('hex'), src).toBe('89504e470d0a1a0a');
      expect(bytes.length, src).toBeLessThan(40 * 1024);
    }
    expect((await request(server.url, 'GET', '/docs/images/admin.md')).status).toBe(404);
    expect((await request(server.url, 'GET', '/docs/images/..%2Fadmin.md')).status).toBe(404);
  });
});
