import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemResolver, type Resolver } from '../src/webhooks/url-policy.ts';
import { startReceiver, type Receiver } from './helpers/receiver.ts';
import { startTestServer, tableCounts, type TestServer } from './helpers/server.ts';

/**
 * DNS is the outside world here: a fake answers for the .test names the cases need and the
 * system resolver answers the rest (so `localhost` is resolved for real).
 */
const answers: Record<string, string[]> = {
  'public.example.test': ['93.184.215.14'],
  'inward.example.test': ['10.0.0.5'],
  'mixed.example.test': ['93.184.215.14', '127.0.0.1'],
  'v6local.example.test': ['fe80::1'],
  'hooks.localhost': ['127.0.0.1'],
};
const fakeDns: Resolver = async (hostname) => {
  const addresses = answers[hostname];
  if (!addresses) return systemResolver(hostname);
  return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};

let secure: TestServer;
let insecure: TestServer;
let receiver: Receiver;

beforeAll(async () => {
  secure = await startTestServer({ webhooks: { allowInsecure: false, resolve: fakeDns, runner: false } });
  insecure = await startTestServer({ webhooks: { allowInsecure: true, resolve: fakeDns } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await secure.stop();
  await insecure.stop();
  await receiver.close();
});

const register = (server: TestServer, url: string) => server.api.post('/api/v1/webhooks', { url, events: ['points.awarded'] });

const HTTPS = /"url" must be an https URL/;
const INSIDE = /"url" must not point inside a private network/;
const RESOLVES = /"url" is refused: .* resolves to/;

const refusedWithoutFlag: [string, RegExp][] = [
  ['http://93.184.215.14/hooks', HTTPS],
  ['http://127.0.0.1:8080/hooks', HTTPS],
  ['http://localhost:8080/hooks', HTTPS],
  ['ftp://public.example.test/hooks', HTTPS],
  ['javascript:alert(1)', HTTPS],
  ['file:///etc/passwd', HTTPS],
  ['not a url', /"url" is not a valid URL/],
  ['https://user:pw@public.example.test/', /"url" must not contain a user name or password/],
  ['https://10.1.2.3/', /10\.1\.2\.3 is a private address/],
  ['https://172.16.5.4/', /private address/],
  ['https://192.168.1.1/', /private address/],
  ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is a link-local address/],
  ['https://100.64.0.1/', /shared \(CGNAT\) address/],
  ['https://127.0.0.1/', /loopback address/],
  ['https://0x7f000001/', /127\.0\.0\.1 is a loopback address/],
  ['https://0.0.0.0/', /unspecified address/],
  ['https://224.0.0.1/', /multicast address/],
  ['https://[::1]/', /::1 is a loopback address/],
  ['https://[fe80::1]/', /link-local address/],
  ['https://[fd00:ec2::254]/', /private \(unique local\) address/],
  ['https://[::ffff:127.0.0.1]/', /carries 127\.0\.0\.1 is a loopback address/],
  ['https://[::ffff:a00:1]/', /carries 10\.0\.0\.1 is a private address/],
  ['https://localhost:8443/hooks', RESOLVES],
  ['https://inward.example.test/', /inward\.example\.test resolves to 10\.0\.0\.5 is a private address/],
  ['https://mixed.example.test/', /mixed\.example\.test resolves to 127\.0\.0\.1 is a loopback address/],
  ['https://v6local.example.test/', /link-local address/],
];

describe('webhook URLs at registration', () => {
  it.each(refusedWithoutFlag)('refuses %s without --allow-insecure-webhooks', async (url, message) => {
    const before = tableCounts(secure);
    const res = await register(secure, url);
    expect(res.status, res.text).toBe(400);
    expect(res.body.message).toMatch(message);
    expect(tableCounts(secure)).toEqual(before);
  });

  it('accepts public https URLs, and names that do not resolve yet', async () => {
    for (const url of ['https://public.example.test/hooks?x=1', 'https://93.184.215.14:8443/', 'https://[2606:4700::1111]/', 'https://not-yet.invalid/hooks']) {
      expect((await register(secure, url)).status, url).toBe(201);
    }
  });

  it('checks a changed URL the same way', async () => {
    const { body } = await register(secure, 'https://public.example.test/');
    const res = await secure.api.patch(`/api/v1/webhooks/${body.id}`, { url: 'https://169.254.169.254/' });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/link-local/);
    expect((await secure.api.get(`/api/v1/webhooks/${body.id}`)).body.url).toBe('https://public.example.test/');
  });

  it('with the flag, allows plain http to loopback only; private ranges stay refused', async () => {
    for (const url of ['http://127.0.0.1:9/', 'http://localhost:9/', 'http://[::1]:9/', 'http://hooks.localhost:9/', 'https://localhost:9/']) {
      expect((await register(insecure, url)).status, url).toBe(201);
    }
    const refused: [string, RegExp][] = [
      ['http://93.184.215.14/', HTTPS],
      ['http://public.example.test/', HTTPS],
      ['http://10.0.0.1/', HTTPS],
      ['https://10.0.0.1/', INSIDE],
      ['https://169.254.169.254/', INSIDE],
      ['https://inward.example.test/', RESOLVES],
    ];
    for (const [url, message] of refused) {
      const res = await register(insecure, url);
      expect(res.status, url).toBe(400);
      expect(res.body.message, url).toMatch(message);
    }
  });
});

describe('webhook URLs at delivery', () => {
  it('refuses a name that resolves inward by the time of delivery, and sends nothing', async () => {
    // A project of its own, so the public addresses registered above are never dialled.
    const { api } = secure.addProject('Rebind');
    answers['rebind.example.test'] = ['93.184.215.14'];
    const created = await api.post('/api/v1/webhooks', { url: `https://rebind.example.test:${receiver.port}/hooks`, events: ['points.awarded'] });
    expect(created.status).toBe(201);
    answers['rebind.example.test'] = ['127.0.0.1'];

    await api.post('/api/v1/members', { externalId: 'rita' });
    await api.post('/api/v1/members/rita/points', { amount: 1 });
    expect(await secure.deliveries.runDue()).toBe(1);
    const row = secure.ctx.db.prepare('SELECT status, attempts, last_error FROM webhook_deliveries WHERE webhook_id = ?').get(created.body.id);
    expect(row).toEqual({ status: 'pending', attempts: 1, last_error: 'blocked_address: rebind.example.test resolves to 127.0.0.1 is a loopback address; webhooks may not reach private networks' });

    const test = await api.post(`/api/v1/webhooks/${created.body.id}/test`);
    expect(test.body).toMatchObject({ success: false, statusCode: null, error: expect.stringMatching(/resolves to 127\.0\.0\.1/) });
    expect(receiver.received).toHaveLength(0);
  });

  it('connects to the address it checked (a .localhost name answered by our resolver reaches the receiver)', async () => {
    const created = await register(insecure, `http://hooks.localhost:${receiver.port}/hooks`);
    const res = await insecure.api.post(`/api/v1/webhooks/${created.body.id}/test`);
    expect(res.body).toMatchObject({ success: true, statusCode: 200 });
    expect(receiver.received.at(-1)!.headers.host).toBe(`hooks.localhost:${receiver.port}`);
  });
});
