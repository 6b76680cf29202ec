import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client, request } from '../helpers/http.ts';
import { startTestServer, TestClock, type TestServer } from '../helpers/server.ts';
import { widgetClient } from '../helpers/widget.ts';

/**
 * An attacker against a live server with the production defaults of the HTTP layer: guessing
 * promo codes and keys, flooding, deep and sneaky JSON, slow and huge bodies, many sockets.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Opens a raw socket to the server; resolves once connected. */
function rawSocket(url: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Everything the server sends until it closes the socket. */
const untilClosed = (socket: Socket) => new Promise<string>((resolve) => {
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  socket.on('error', () => {});
  socket.once('close', () => resolve(received));
});

const nest = (depth: number): unknown => (depth === 0 ? 'bottom' : { deeper: nest(depth - 1) });

describe('the HTTP layer under attack, with production defaults', () => {
  let server: TestServer;
  const clock = new TestClock(new Date('2026-03-01T10:00:00.000Z'));

  beforeAll(async () => {
    server = await startTestServer({ clock, guard: {}, connections: { requestTimeoutMs: 1000, headersTimeoutMs: 500 } });
  });
  afterAll(async () => {
    await server.stop();
  });

  const widget = (externalId: string, keys: { publishableKey: string; widgetSecret: string } = server) =>
    widgetClient(server.url, { publicKey: keys.publishableKey, widgetSecret: keys.widgetSecret }, externalId, clock.now);

  it('/healthz reports replication state, lag and last sync, never the replica URL', async () => {
    server.ctx.replication = () => ({ enabled: true, replica: 's3://shop-backups/punchcard/db', state: 'replicating', lastSyncAt: clock.now().toISOString(), lagSeconds: 0.4 });
    const res = await client(server.url).get('/healthz');
    expect(res.status).toBe(200);
    expect(res.text).not.toContain('shop-backups');
    expect(res.body.replication).toEqual({ enabled: true, state: 'replicating', lastSyncAt: clock.now().toISOString(), lagSeconds: 0.4 });
  });

  it('sends nosniff and a referrer policy on every response, a CSP and no framing on HTML, and leaves the widget usable cross-origin', async () => {
    const anyone = client(server.url);
    const responses = [await anyone.get('/healthz'), await anyone.get('/api/v1/members'), await anyone.get('/nowhere'), await anyone.get('/widget.js'),
      await anyone.get('/'), await widget('hdr').post('/init', {})];
    for (const res of responses) {
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['referrer-policy']).toBe('no-referrer');
      expect(res.headers['cross-origin-resource-policy'] ?? 'cross-origin').toBe('cross-origin');
    }
    const home = responses[4]!;
    const csp = String(home.headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(home.headers['x-frame-options']).toBe('DENY');
    // The start page runs no script at all: nothing but default-src 'none' governs scripts.
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain('script-src');
    expect(responses[3]!.headers['cross-origin-resource-policy']).toBe('cross-origin');

    const preflight = await anyone.call('OPTIONS', '/api/widget/init', { headers: { origin: 'https://shop.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://shop.example');
  });

  it('answers 404 for widget strings named after prototype keys', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      const res = await client(server.url).get(`/widget/strings/${name}.json`);
      expect(res.status, name).toBe(404);
      expect(res.body.error).toBe('Not Found');
    }
    expect((await client(server.url).get('/widget/strings/en.json')).status).toBe(200);
  });

  it('promo guessing: hidden codes answer as unknown ones, and a member is stopped after 10 failures an hour with 429 and Retry-After', async () => {
    const promo = (body: Record<string, unknown>) => server.api.post('/api/v1/promo-codes', { rewardType: 'POINTS', points: 50, ...body });
    expect((await promo({ code: 'REAL-CODE' })).status).toBe(201);
    expect((await promo({ code: 'SOON-CODE', startsAt: new Date(clock.now().getTime() + HOUR).toISOString() })).status).toBe(201);
    expect((await promo({ code: 'OFF-CODE', isActive: false })).status).toBe(201);

    const guesser = widget('guesser');
    expect((await guesser.post('/init', {})).status).toBe(200);
    const attempt = (code: string) => guesser.post('/promo-code', { code });
    const unknown = await attempt('NO-SUCH-CODE');
    expect(unknown.status).toBe(404);
    const shape = (res: { status: number; body: { error: string; message: string } }, code: string) =>
      ({ status: res.status, error: res.body.error, message: res.body.message.replace(code, 'CODE') });
    for (const hidden of ['SOON-CODE', 'OFF-CODE']) expect(shape(await attempt(hidden), hidden)).toEqual(shape(unknown, 'NO-SUCH-CODE'));

    for (let i = 3; i < 10; i++) expect((await attempt(`GUESS-${i}`)).status).toBe(404);
    // The 11th try is refused before any lookup: even the real code gets the same 429.
    for (const code of ['GUESS-10', 'REAL-CODE']) {
      const refused = await attempt(code);
      expect(refused.status).toBe(429);
      expect(refused.body).toEqual({ error: 'rate_limited', message: expect.stringMatching(/promo/) });
      expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(360);
    }
    clock.advance(6 * MINUTE); // one failure's worth: 10 an hour
    expect((await attempt('REAL-CODE')).status).toBe(200);
  });

  it('promo guessing from one address over many members stops at 30 failures an hour', async () => {
    clock.advance(HOUR);
    let failures = 0;
    let refused = null;
    for (let m = 0; m < 5 && !refused; m++) {
      const member = widget(`sybil-${m}`);
      expect((await member.post('/init', {})).status).toBe(200);
      for (let i = 0; i < 10; i++) {
        const res = await member.post('/promo-code', { code: `SYBIL-${m}-${i}` });
        if (res.status === 429) {
          refused = res;
          break;
        }
        expect(res.status).toBe(404);
        failures++;
      }
    }
    expect(failures).toBe(30);
    expect(refused?.headers['retry-after']).toMatch(/^[1-9]\d*$/);
    clock.advance(HOUR);
  });

  it('server API promo redemptions: 10 failures an hour per member, so a shop relaying guesses cannot be used as an oracle', async () => {
    expect((await server.api.post('/api/v1/members', { externalId: 'relayed' })).status).toBe(201);
    for (let i = 0; i < 10; i++) expect((await server.api.post('/api/v1/promo-codes/redeem', { externalId: 'relayed', code: `NOPE-${i}` })).status).toBe(404);
    const refused = await server.api.post('/api/v1/promo-codes/redeem', { externalId: 'relayed', code: 'REAL-CODE' });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limited');
    // Another member of the same shop is not affected.
    expect((await server.api.post('/api/v1/members', { externalId: 'honest' })).status).toBe(201);
    expect((await server.api.post('/api/v1/promo-codes/redeem', { externalId: 'honest', code: 'REAL-CODE' })).status).toBe(200);
  });

  it('failed key attempts: after 60 from one address a wrong key gets 429, a right one still passes (test/security/lockout.test.ts has every surface)', async () => {
    clock.advance(HOUR);
    const guessing = client(server.url);
    for (let i = 0; i < 60; i++) expect((await guessing.get('/api/v1/project', { key: `sk_live_guess${i}` })).status).toBe(401);
    const refused = await guessing.get('/api/v1/project', { key: 'sk_live_guess60' });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect((await server.api.get('/api/v1/project')).status).toBe(200);
    clock.advance(HOUR);
  });

  it('per-project limits: a project may tighten its secret key and member limits; a member cannot grow the events table without bound', async () => {
    const shop = server.addProject('Tight shop');
    const patch = await shop.api.patch('/api/v1/project', { rateLimits: { apiKey: '3/s', memberWrites: '5/h' } });
    expect(patch.status, patch.text).toBe(200);
    expect(patch.body.rateLimits).toEqual({ apiKey: '3/s', member: null, memberWrites: '5/h', promoFailures: null });
    // The bucket holds 3 from now on.
    for (let i = 0; i < 3; i++) expect((await shop.api.get('/api/v1/project')).status).toBe(200);
    const tooFast = await shop.api.get('/api/v1/project');
    expect(tooFast.status).toBe(429);
    expect(tooFast.headers['retry-after']).toBe('1');
    expect((await server.api.get('/api/v1/project')).status).toBe(200); // the other project's key is unaffected

    clock.advance(1000);
    expect((await shop.api.patch('/api/v1/project', { rateLimits: { apiKey: null } })).status).toBe(200);
    const member = widget('writer', shop);
    expect((await member.post('/init', {})).status).toBe(200);
    const events = () => (server.ctx.db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    for (let i = 0; i < 5; i++) expect((await member.patch('/profile', { name: `Name ${i}` })).status).toBe(200);
    const before = events();
    const refused = await member.patch('/profile', { name: 'One too many' });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toBe('rate_limited');
    expect(events()).toBe(before);
    expect((await member.get('/history')).status).toBe(200); // reading is still allowed
    expect((await shop.api.patch('/api/v1/project', { rateLimits: { apiKey: 'often' } })).status).toBe(400);
  });

  it('the default widget limit: 120 requests a minute per member', async () => {
    const member = widget('busy');
    expect((await member.post('/init', {})).status).toBe(200);
    let answered = 1;
    let refused = null;
    while (!refused && answered < 200) {
      const res = await member.get('/history');
      if (res.status === 429) refused = res;
      else answered++;
    }
    expect(answered).toBe(120);
    expect(refused?.headers['retry-after']).toBe('1');
  });

  it('JSON nested deeper than 32 levels is a 400 naming the problem, on the server and widget APIs', async () => {
    // Written by hand: JSON.stringify itself gives up long before 5,000 levels.
    const deep = await server.api.call('POST', '/api/v1/members', { raw: `{"externalId":"deep","metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`,
      headers: { 'content-type': 'application/json' } });
    expect(deep.status).toBe(400);
    expect(deep.body.message).toMatch(/more than 32 levels deep/);
    const brackets = await server.api.call('POST', '/api/v1/members', { raw: `{"externalId":"x","metadata":${'['.repeat(30_000)}${']'.repeat(30_000)}}`,
      headers: { 'content-type': 'application/json' } });
    expect(brackets.status).toBe(400);
    expect((await widget('deep-w').patch('/profile', { name: nest(100) })).status).toBe(400);
    expect((await server.api.post('/api/v1/members', { externalId: 'shallow', metadata: nest(20) })).status).toBe(201);
  });

  it('refuses control characters, bidi overrides and lone surrogates in ids and names; counts characters, stores NFC', async () => {
    const refused: [string, Record<string, unknown>, RegExp][] = [
      ['bidi in externalId', { externalId: 'admin\u202Egpj.exe' }, /"externalId" must hold only/],
      ['zero-width in externalId', { externalId: 'ali\u200Bce' }, /"externalId" must hold only/],
      ['leading space in externalId', { externalId: ' alice' }, /"externalId" must hold only/],
      ['NFD externalId', { externalId: 'jose\u0301' }, /"externalId" must be in Unicode normalization form C/],
      ['bidi isolate in name', { externalId: 'n1', name: 'Bob\u2067evil\u2069' }, /"name" must not contain bidirectional/],
      ['C1 control in name', { externalId: 'n2', name: 'Bob\u0085' }, /"name" must not contain control characters/],
      ['newline in name', { externalId: 'n3', name: 'Bob\nSmith' }, /"name" must not contain control characters/],
    ];
    for (const [what, body, message] of refused) {
      const res = await server.api.post('/api/v1/members', body);
      expect(res.status, what).toBe(400);
      expect(res.body.message, what).toMatch(message);
    }
    // A lone surrogate only arrives as a JSON escape.
    const lone = await server.api.call('POST', '/api/v1/members', { raw: '{"externalId":"n4","name":"Bob \\ud800"}', headers: { 'content-type': 'application/json' } });
    expect(lone.status).toBe(400);
    expect(lone.body.message).toMatch(/"name" must be valid Unicode/);
    const badCode = await widget('coder').post('/promo-code', { code: 'REAL\u202ECODE' });
    expect(badCode.status).toBe(400);

    // 200 emoji are 200 characters (400 UTF-16 units); a name in NFD is stored in NFC.
    const emoji = '😀'.repeat(200);
    expect((await server.api.post('/api/v1/members', { externalId: 'emoji', name: emoji })).status).toBe(201);
    expect((await server.api.post('/api/v1/members', { externalId: 'emoji2', name: `${emoji}😀` })).body.message).toMatch(/at most 200 characters/);
    const nfd = await server.api.post('/api/v1/members', { externalId: 'jose', name: 'Jose\u0301' });
    expect(nfd.body.name).toBe('Jos\u00e9');
    // Descriptions keep line breaks; ids keep inner spaces and any script.
    expect((await server.api.post('/api/v1/rewards', { name: 'Mug', type: 'PHYSICAL', pointsCost: 5, description: 'Line one\nLine two' })).status).toBe(201);
    expect((await server.api.post('/api/v1/members', { externalId: 'shop/7 ✓ Zoë 山田' })).status).toBe(201);
  });

  /** Sends `head`, then body bytes while the server keeps reading, up to 64 MB; it must close the socket long before. */
  async function flood(head: string, chunked = false): Promise<{ sent: number; received: string }> {
    const socket = await rawSocket(server.url);
    const answer = untilClosed(socket);
    socket.write(head);
    const data = Buffer.alloc(64 * 1024, 97);
    const chunk = chunked ? Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]) : data;
    let sent = 0;
    while (!socket.destroyed && sent < 64 * 1024 * 1024) {
      sent += chunk.length;
      if (!socket.write(chunk)) await new Promise((resolve) => { socket.once('drain', resolve); socket.once('close', resolve); });
    }
    socket.destroy();
    return { sent, received: await answer };
  }

  it('refuses a body on GET at once: a 2 GB body on /healthz is not read', async () => {
    const { sent, received } = await flood('GET /healthz HTTP/1.1\r\nHost: x\r\nContent-Length: 2000000000\r\n\r\n');
    expect(sent).toBeLessThan(64 * 1024 * 1024);
    expect(received).toMatch(/^HTTP\/1\.1 413/);
    expect(received).toContain('takes no body');
  });

  it('does not read on after answering: an endless chunked body with a wrong key gets its 401 and a closed connection', async () => {
    const { sent, received } = await flood('POST /api/v1/members HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer sk_live_wrong\r\n'
      + 'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', true);
    expect(sent).toBeLessThan(64 * 1024 * 1024);
    expect(received).toMatch(/^HTTP\/1\.1 401/);
    expect(received.toLowerCase()).toContain('connection: close');
  });

  it('sends the standard reason phrase ("200 OK"), not an empty one', async () => {
    expect((await fetch(`${server.url}/healthz`)).statusText).toBe('OK');
    expect((await fetch(`${server.url}/api/v1/nothing-here`)).statusText).toBe('Not Found');
    const created = await fetch(`${server.url}/api/v1/members`, { method: 'POST', body: '{"externalId":"reason"}',
      headers: { authorization: `Bearer ${server.secretKey}`, 'content-type': 'application/json' } });
    expect([created.status, created.statusText]).toEqual([201, 'Created']);
  });

  it('keeps the connection alive after a GET without a body (only an unread body closes it)', async () => {
    const res = await fetch(`${server.url}/healthz`);
    await res.text();
    expect(res.headers.get('connection')).not.toBe('close');
  });

  it('refuses bodies over 64 KiB with 413', async () => {
    const big = await server.api.post('/api/v1/members', { externalId: 'big', metadata: { blob: 'x'.repeat(70 * 1024) } });
    expect(big.status).toBe(413);
    expect(big.body.message).toMatch(/at most 65536 bytes/);
  });

  it('cuts off a body sent slowly when the request timeout passes (408) and a request whose headers never end', async () => {
    const slowBody = await rawSocket(server.url);
    const bodyAnswer = untilClosed(slowBody);
    slowBody.write(`POST /api/v1/members HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${server.secretKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"ext`);
    expect(await bodyAnswer).toMatch(/^HTTP\/1\.1 408/);

    const slowHeaders = await rawSocket(server.url);
    const headersAnswer = untilClosed(slowHeaders);
    slowHeaders.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: 1');
    expect(await headersAnswer).toMatch(/^HTTP\/1\.1 408/);
  }, 10_000);
});

describe('client addresses and connections', () => {
  it('limits each client address; X-Forwarded-For counts only from the trusted proxy, right-most untrusted entry first', async () => {
    const trusting = await startTestServer({ guard: { rateLimits: { address: '3/min' }, trustedProxies: ['127.0.0.1'] } });
    const plain = await startTestServer({ guard: { rateLimits: { address: '3/min' } } });
    try {
      const from = (target: TestServer, forwarded: string) => request(target.url, 'GET', '/healthz', { headers: { 'x-forwarded-for': forwarded } });
      for (let i = 0; i < 3; i++) expect((await from(trusting, `6.6.6.${i}, 203.0.113.1`)).status).toBe(200);
      const limited = await from(trusting, '7.7.7.7, 203.0.113.1');
      expect(limited.status).toBe(429);
      expect(limited.body.error).toBe('rate_limited');
      expect(limited.headers['retry-after']).toBe('20');
      expect(limited.headers['access-control-allow-origin']).toBe('*');
      expect((await from(trusting, '203.0.113.2')).status).toBe(200);
      // The server API is limited per key, not per address.
      expect((await trusting.api.get('/api/v1/project')).status).toBe(200);

      // Without a trusted proxy the header is the client's own claim: the socket's address counts.
      for (let i = 0; i < 3; i++) expect((await from(plain, `198.51.100.${i}`)).status).toBe(200);
      expect((await from(plain, '198.51.100.99')).status).toBe(429);
    } finally {
      await trusting.stop();
      await plain.stop();
    }
  });

  it('caps open sockets: past the cap new connections are closed at once, those inside keep working', async () => {
    const capped = await startTestServer({ connections: { maxConnections: 10 } });
    const sockets: Socket[] = [];
    try {
      let closed = 0;
      const tenClosed = new Promise<void>((resolve) => {
        for (let i = 0; i < 20; i++) {
          void rawSocket(capped.url).then((socket) => {
            sockets.push(socket);
            socket.on('error', () => {});
            socket.once('close', () => {
              if (++closed === 10) resolve();
            });
          });
        }
      });
      await tenClosed;
      const open = sockets.filter((socket) => !socket.destroyed);
      expect(open.length).toBe(10);
      const answer = untilClosed(open[0]!);
      open[0]!.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      expect(await answer).toMatch(/^HTTP\/1\.1 200/);
    } finally {
      for (const socket of sockets) socket.destroy();
      await capped.stop();
    }
  }, 10_000);

  it('stops start-up on timeouts that contradict each other', async () => {
    await expect(startTestServer({ connections: { headersTimeoutMs: 5000, requestTimeoutMs: 1000 } })).rejects.toThrow(/headers timeout/);
  });
});
