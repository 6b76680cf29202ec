import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signMessage } from '../../src/domain/webhook-signature.ts';
import { testEvent } from '../../src/domain/webhooks.ts';
import type { Resolver } from '../../src/domain/webhook-url.ts';
import { attemptDelivery, MAX_RESPONSE_BYTES, webhookSettings } from '../../src/jobs/webhook-delivery.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startTestServer } from '../helpers/server.ts';

// The attacker here owns webhook receivers (or a DNS name) and uses them against the server and
// against the other tenants: black holes, huge answers, probes of internal services.

describe('fair delivery between tenants', () => {
  it("delivers a healthy project's events while ten projects' endpoints are black-holed", async () => {
    // Small numbers with the production proportions: 16 slots, 4 per endpoint, 300 ms attempts.
    const server = await startTestServer({ webhooks: { timeoutMs: 300, concurrency: 16, perEndpoint: 4 } });
    const blackHole = await startReceiver(() => 'hang');
    const healthy = await startReceiver();
    try {
      for (let p = 0; p < 10; p++) {
        const { api } = server.addProject(`Black hole ${p}`);
        await api.post('/api/v1/webhooks', { url: blackHole.url, events: ['points.awarded'] });
        await api.post('/api/v1/members', { externalId: 'm' });
        for (let i = 0; i < 20; i++) await api.post('/api/v1/members/m/points', { amount: 1 });
      }
      // Every slot is held by a black hole before the healthy project's event exists.
      await blackHole.waitFor(16);
      const { api } = server.addProject('Healthy');
      await api.post('/api/v1/webhooks', { url: healthy.url, events: ['points.awarded'] });
      await api.post('/api/v1/members', { externalId: 'h' });
      const sentAt = performance.now();
      await api.post('/api/v1/members/h/points', { amount: 1 });
      const [arrived] = await healthy.waitFor(1);
      // It waited for at most one round of black-holed attempts (16 slots, then one turn of the
      // round robin), not behind the 200 older deliveries queued for the black holes (oldest first,
      // as before, sent every one of them first).
      const blackHoleAttemptsMeanwhile = blackHole.received.filter((request) => request.at > sentAt && request.at < arrived!.at).length;
      expect(blackHoleAttemptsMeanwhile).toBeLessThanOrEqual(16 + 16);
    } finally {
      await server.stop();
      await blackHole.close();
      await healthy.close();
    }
  }, 30_000);
});

/** A receiver that answers 200 (or `status`) with a 10 MB body, sends 16 KiB of it and then nothing more. */
async function startHugeAnswer(status = 200) {
  const responses: { res: ServerResponse; finished: boolean }[] = [];
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const entry = { res, finished: false };
      responses.push(entry);
      res.on('finish', () => (entry.finished = true));
      res.writeHead(status, { 'content-type': 'text/plain', 'content-length': String(10 * 1024 * 1024) });
      res.write(Buffer.alloc(16 * 1024, 'x'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    responses,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

describe('what the server reads from receivers', () => {
  it('reads a few KiB of a 10 MB answer and ends the attempt there', async () => {
    const huge = await startHugeAnswer();
    try {
      const settings = webhookSettings({ allowInsecure: true, timeoutMs: 10_000 });
      const message = signMessage(testEvent('whk_x', new Date()), `whsec_${Buffer.alloc(32).toString('base64')}`, new Date());
      const outcome = await attemptDelivery(huge.url, message, settings);
      // Success as soon as the status is in; the body is cut off after the cap (one socket read
      // past it at most), not read to its end or until the timeout.
      expect(outcome).toMatchObject({ success: true, statusCode: 200, error: null });
      expect(outcome.bytesRead).toBeGreaterThan(0);
      expect(outcome.bytesRead).toBeLessThanOrEqual(MAX_RESPONSE_BYTES + 16 * 1024);
      expect(huge.responses.map((r) => r.finished)).toEqual([false]);
    } finally {
      await huge.close();
    }
  });

  it('never echoes what a receiver answered: /test and lastError keep a status and a classified reason', async () => {
    const server = await startTestServer({ webhooks: { runner: false, timeoutMs: 300 } });
    const probe = await startReceiver(() => 500); // answers "receiver says no": an internal service's page, say
    const huge = await startHugeAnswer(502);
    try {
      const created = await server.api.post('/api/v1/webhooks', { url: probe.url, events: ['points.awarded'] });
      const test = await server.api.post(`/api/v1/webhooks/${created.body.id}/test`);
      expect(test.body).toEqual({ success: false, statusCode: 500, durationMs: expect.any(Number), error: 'http_500' });
      await server.api.post('/api/v1/members', { externalId: 'x' });
      await server.api.post('/api/v1/members/x/points', { amount: 1 });
      await server.deliveries.runDue();
      expect(server.ctx.db.prepare('SELECT last_status, last_error FROM webhook_deliveries').all()).toEqual([{ last_status: 500, last_error: 'http_500' }]);
      expect(JSON.stringify((await server.api.get(`/api/v1/webhooks/${created.body.id}`)).body)).not.toContain('receiver says no');

      const cut = await server.api.post('/api/v1/webhooks', { url: huge.url, events: ['points.awarded'] });
      expect((await server.api.post(`/api/v1/webhooks/${cut.body.id}/test`)).body).toEqual({ success: false, statusCode: 502, durationMs: expect.any(Number), error: 'http_502' });

      // Nothing listens here: a classified reason, not the socket error's text.
      const closed = await server.api.post('/api/v1/webhooks', { url: 'http://127.0.0.1:9/hooks', events: ['points.awarded'] });
      expect((await server.api.post(`/api/v1/webhooks/${closed.body.id}/test`)).body).toMatchObject({ success: false, statusCode: null, error: 'connection_refused' });
    } finally {
      await server.stop();
      await probe.close();
      await huge.close();
    }
  });
});

describe('IPv6 forms that carry an IPv4 address', () => {
  const carried: [string, RegExp][] = [
    ['https://[::ffff:10.0.0.1]/', /10\.0\.0\.1 is a private address, carried in the IPv4-mapped address/],
    ['https://[::ffff:0:127.0.0.1]/', /127\.0\.0\.1 is a loopback address, carried in the IPv4-translated address/],
    ['https://[64:ff9b::a9fe:a9fe]/', /169\.254\.169\.254 is a link-local address, carried in the NAT64 address/],
    ['https://[64:ff9b:1:c0a8:1:100::]/', /192\.168\.1\.1 is a private address, carried in the local NAT64 address/],
    ['https://[2002:a00:1::1]/', /10\.0\.0\.1 is a private address, carried in the 6to4 address/],
    // Teredo: the client address 127.0.0.1 is stored inverted (80ff:fffe).
    ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', /127\.0\.0\.1 is a loopback address, carried in the Teredo address/],
  ];
  const answers: Record<string, string[]> = { 'mapped.example.test': ['::ffff:169.254.169.254'], 'teredo.example.test': ['2001::f5ff:fffa'] };
  const resolve: Resolver = async (hostname) => (answers[hostname] ?? ['93.184.215.14']).map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  let server: Awaited<ReturnType<typeof startTestServer>>;
  beforeAll(async () => {
    server = await startTestServer({ webhooks: { allowInsecure: false, resolve, runner: false } });
  });
  afterAll(() => server.stop());

  it.each(carried)('judges %s by the address it carries', async (url, message) => {
    const res = await server.api.post('/api/v1/webhooks', { url, events: ['points.awarded'] });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(message);
  });

  it('judges the same forms when DNS answers with them, and lets through those carrying public addresses', async () => {
    for (const [host, carriedAddress] of [['mapped.example.test', '169.254.169.254'], ['teredo.example.test', '10.0.0.5']]) {
      const res = await server.api.post('/api/v1/webhooks', { url: `https://${host}/`, events: ['points.awarded'] });
      expect(res.status).toBe(400);
      expect(res.body.message).toContain(carriedAddress);
    }
    for (const url of ['https://[::ffff:93.184.215.14]/', 'https://[64:ff9b::5db8:d70e]/', 'https://[2002:5db8:d70e::1]/']) {
      expect((await server.api.post('/api/v1/webhooks', { url, events: ['points.awarded'] })).status, url).toBe(201);
    }
  });
});

describe('DNS rebinding', () => {
  it('resolves once per attempt and connects to the address it checked', async () => {
    const receiver = await startReceiver();
    // The first answer is checked and allowed; any later lookup would get an address nothing listens on.
    let lookups = 0;
    const resolve: Resolver = async () => [{ address: lookups++ === 0 ? '127.0.0.1' : '127.0.0.2', family: 4 }];
    try {
      const settings = webhookSettings({ allowInsecure: true, resolve, timeoutMs: 2_000 });
      const message = signMessage(testEvent('whk_x', new Date()), `whsec_${Buffer.alloc(32).toString('base64')}`, new Date());
      const outcome = await attemptDelivery(`http://rebind.localhost:${receiver.port}/hooks`, message, settings);
      expect(outcome).toMatchObject({ success: true, statusCode: 200 });
      expect(lookups).toBe(1);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });
});
