import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemResolver, type Resolver } from '../../src/webhooks/url-policy.ts';
import { UNPROVEN_IN_FLIGHT } from '../../src/webhooks/fair-share.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** DNS is the outside world: the .test names answer as the cases need. */
const answers: Record<string, string[]> = {
  'sixtofour.example.test': ['2002:a00:1::1'],
  'nat64.example.test': ['64:ff9b::a9fe:a9fe'],
  'public6to4.example.test': ['2002:5db8:d70e::1'],
};
const fakeDns: Resolver = async (hostname) => {
  const addresses = answers[hostname];
  if (!addresses) return systemResolver(hostname);
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

describe('webhook URLs that carry an IPv4 address inside an IPv6 one', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ webhooks: { allowInsecure: false, resolve: fakeDns, runner: false } });
  });
  afterAll(() => server.stop());

  const refused: [string, RegExp][] = [
    ['https://[2002:a00:1::1]/', /carries 10\.0\.0\.1 is a private address/], // 6to4
    ['https://[2002:7f00:1::]/', /carries 127\.0\.0\.1 is a loopback address/],
    ['https://[2001:0:5db8:d70e::f5ff:fffe]/', /carries 10\.0\.0\.1 is a private address/], // Teredo: the client, bits inverted
    ['https://[64:ff9b::a9fe:a9fe]/', /carries 169\.254\.169\.254 is a link-local address/], // NAT64
    ['https://[64:ff9b:1::a00:1]/', /local-use NAT64 address/],
    ['https://[::ffff:0:a00:1]/', /carries 10\.0\.0\.1 is a private address/], // IPv4-translated
    ['https://[::ffff:169.254.169.254]/', /carries 169\.254\.169\.254 is a link-local address/], // IPv4-mapped
    ['https://[::a00:1]/', /carries 10\.0\.0\.1 is a private address/], // IPv4-compatible
    ['https://sixtofour.example.test/', /resolves to 2002:a00:1::1 carries 10\.0\.0\.1/],
    ['https://nat64.example.test/', /resolves to 64:ff9b::a9fe:a9fe carries 169\.254\.169\.254/],
  ];
  it.each(refused)('refuses %s, judged by the address it carries', async (url, message) => {
    const res = await server.api.post('/api/v1/webhooks', { url, events: ['points.awarded'] });
    expect(res.status, res.text).toBe(400);
    expect(res.body.message).toMatch(message);
  });

  it('accepts 6to4 and Teredo forms of public addresses', async () => {
    for (const url of ['https://[2002:5db8:d70e::1]/', 'https://public6to4.example.test/', 'https://[2001:0:5db8:d70e::a247:28f1]/']) {
      expect((await server.api.post('/api/v1/webhooks', { url, events: ['points.awarded'] })).status, url).toBe(201);
    }
  });
});

describe('what a receiver answers never comes back', () => {
  let server: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    server = await startTestServer();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await server.stop();
    await receiver.close();
  });

  it('keeps only the status and a class: not a byte of the body in /test, lastError or the deliveries', async () => {
    const leak = 'INTERNAL-ADMIN-PANEL root:x:0:0';
    const probe = createServer((_req, res) => res.writeHead(500, `Internal ${'x'.repeat(10)}`, { 'content-type': 'text/plain' }).end(leak));
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(probe.address() as AddressInfo).port}/admin`;
    const { body: webhook } = await server.api.post('/api/v1/webhooks', { url, events: ['points.awarded'] });
    const test = await server.api.post(`/api/v1/webhooks/${webhook.id}/test`);
    expect(test.body).toMatchObject({ success: false, statusCode: 500, error: 'http_500 (Internal Server Error)' });

    await server.api.post('/api/v1/members', { externalId: 'probe' });
    await server.api.post('/api/v1/members/probe/points', { amount: 1 });
    await server.deliveries.runDue();
    const answers = [test.text, (await server.api.get(`/api/v1/webhooks/${webhook.id}`)).text, (await server.api.get('/api/v1/webhooks')).text];
    for (const text of answers) expect(text).not.toContain('INTERNAL-ADMIN');
    expect(JSON.stringify(server.ctx.db.prepare('SELECT last_error FROM webhook_deliveries').all())).not.toContain('INTERNAL-ADMIN');
    probe.close();
  });

  it('reads a few KiB of an answer at most: a receiver streaming a body without end still completes the attempt', async () => {
    const streams = new Set<ServerResponse>();
    let written = 0;
    const endless = createServer((req, res) => {
      req.resume();
      streams.add(res);
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(64 * 1024, 120);
      const pump = () => {
        while (res.write(chunk)) {
          written += chunk.length;
          if (written > 64 * 1024 * 1024) return; // 64 MiB: the attempt would never have ended reading it
        }
        res.once('drain', pump);
      };
      pump();
    });
    await new Promise<void>((resolve) => endless.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(endless.address() as AddressInfo).port}/big`;
    const { body: webhook } = await server.api.post('/api/v1/webhooks', { url, events: ['points.awarded'] });
    const test = await server.api.post(`/api/v1/webhooks/${webhook.id}/test`);
    expect(test.body).toMatchObject({ success: true, statusCode: 200 });
    expect(written).toBeLessThan(64 * 1024 * 1024);
    for (const res of streams) res.destroy();
    endless.closeAllConnections();
    endless.close();
    void receiver;
  });
});

describe('fair delivery between projects', () => {
  it("ten projects' black-holed endpoints do not hold up another project's deliveries", async () => {
    // Attempts time out after a minute: long past this test, so every black-holed attempt is still
    // hanging when the healthy project's deliveries arrive.
    const server = await startTestServer({ webhooks: { timeoutMs: 60_000 } });
    const blackHole = await startReceiver(() => 'hang');
    const healthy = await startReceiver();
    try {
      for (let p = 0; p < 10; p++) {
        const { api } = server.addProject(`Stuck ${p}`);
        await api.post('/api/v1/webhooks', { url: `${blackHole.url}/${p}`, events: ['points.awarded'] });
        await api.post('/api/v1/members', { externalId: 'm' });
        for (let i = 0; i < 20; i++) await api.post('/api/v1/members/m/points', { amount: 1 });
      }
      const { api } = server.addProject('Healthy');
      await api.post('/api/v1/webhooks', { url: healthy.url, events: ['points.awarded'] });
      await api.post('/api/v1/members', { externalId: 'h' });
      for (let i = 0; i < 20; i++) await api.post('/api/v1/members/h/points', { amount: 1 });

      await healthy.waitFor(20);
      // Every black-holed attempt is still hanging (none has failed yet), and an endpoint that has
      // never answered holds at most UNPROVEN_IN_FLIGHT of the runner's slots.
      const failedYet = server.ctx.db.prepare("SELECT count(*) FROM webhook_deliveries WHERE attempts > 0 AND status = 'pending'").pluck().get();
      expect(failedYet).toBe(0);
      expect(blackHole.received.length).toBeLessThanOrEqual(10 * UNPROVEN_IN_FLIGHT);
    } finally {
      await blackHole.close(); // ends the hanging attempts, so the server stops at once
      await server.stop();
      await healthy.close();
    }
  }, 40_000);
});
