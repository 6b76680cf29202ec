import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { canonicalAddress, forwardedClient, rateKey } from '../../src/http/client-address.ts';
import { spawnServer } from '../helpers/cli.ts';
import { request } from '../helpers/http.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Client addresses as an attacker meets them behind a reverse proxy: every spelling of one address
 * is one bucket, entries are read as proxies write them, the client's own claims are never
 * believed, and a proxy the server was not told of is reported rather than silently shared.
 */

describe('X-Forwarded-For entries as proxies write them', () => {
  it('reads ip:port, [v6]:port, spaces and quotes, and spells every address one way', () => {
    const spellings: [string, string | null][] = [
      ['203.0.113.7', '203.0.113.7'], [' 203.0.113.7:51234 ', '203.0.113.7'], ['"203.0.113.7"', '203.0.113.7'],
      ['2001:DB8::1', '2001:db8::1'], ['2001:db8:0:0:0:0:0:1', '2001:db8::1'], ['[2001:db8::1]:443', '2001:db8::1'], ['[2001:0DB8::0001]', '2001:db8::1'],
      ['fe80::1%eth0', 'fe80::1'], ['::ffff:10.0.0.1', '10.0.0.1'], ['[::ffff:0a00:0001]:80', '10.0.0.1'],
      ['unknown', null], ['_hidden', null], ['', null], ['203.0.113.7:', null], ['1.2.3', null], [`${'1'.repeat(200)}`, null],
    ];
    for (const [entry, canonical] of spellings) expect(canonicalAddress(entry), entry).toBe(canonical);
  });

  it('walks from the right past the trusted proxies; what lies left of the first other entry is the client\'s own claim', () => {
    const trusted = new Set(['127.0.0.1', '10.0.0.2', '2001:db8::fe']);
    expect(forwardedClient('6.6.6.6, 203.0.113.9', trusted)).toBe('203.0.113.9');
    expect(forwardedClient('6.6.6.6, 203.0.113.9:5000, 10.0.0.2:443', trusted)).toBe('203.0.113.9');
    expect(forwardedClient('6.6.6.6,[2001:DB8::7]:61000 , [2001:db8:0:0:0:0:0:fe]', trusted)).toBe('2001:db8::7');
    expect(forwardedClient('10.0.0.2, 127.0.0.1', trusted)).toBe('10.0.0.2'); // all trusted: the left-most
    // An entry the trusted proxy wrote but that names no address is its own bucket, never a step further left.
    expect(forwardedClient('6.6.6.6, unknown, 10.0.0.2', trusted)).toBe('unparsed:unknown');
    expect(forwardedClient(' , ', trusted)).toBeNull();
  });

  it('counts an IPv6 client by its /64, so one subscriber cannot multiply its budgets by changing addresses', () => {
    expect(rateKey('203.0.113.7')).toBe('203.0.113.7');
    expect(rateKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(rateKey('2001:db8::ffff:1234')).toBe('2001:db8:0:0::/64');
    expect(rateKey('2001:db8:0:1::1')).toBe('2001:db8:0:1::/64');
    expect(rateKey('::1')).toBe('0:0:0:0::/64');
  });
});

describe('behind a trusted proxy', () => {
  const from = (server: TestServer, forwarded: string) => request(server.url, 'GET', '/healthz', { headers: { 'x-forwarded-for': forwarded } });

  it('one client is one bucket whatever the spelling of its address', async () => {
    const server = await startTestServer({ guard: { rateLimits: { address: '3/min' }, trustedProxies: ['127.0.0.1', '::1'] } });
    try {
      for (const spelling of ['2001:DB8::1', '2001:db8:0:0:0:0:0:1', '[2001:db8::1]:443']) expect((await from(server, `9.9.9.9, ${spelling}`)).status).toBe(200);
      expect((await from(server, '2001:db8::2')).status).toBe(429); // the same /64
      expect((await from(server, '2001:db8:0:1::1')).status).toBe(200); // another /64

      for (const spelling of ['203.0.113.7:51234', ' 203.0.113.7 ', '203.0.113.7']) expect((await from(server, spelling)).status).toBe(200);
      const refused = await from(server, '198.51.100.1, 203.0.113.7:40000'); // a claim on the left changes nothing
      expect(refused.status).toBe(429);
      expect(refused.body.error).toBe('rate_limited');
      expect((await request(server.url, 'GET', '/healthz')).body.warnings).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it('a --trusted-proxy that is not an address stops start-up', async () => {
    await expect(startTestServer({ guard: { trustedProxies: ['127.0.0.1', 'proxy.internal'] } })).rejects.toThrow(/--trusted-proxy: "proxy.internal" is not an IP address/);
  });
});

describe('forwarding headers while no proxy is trusted', () => {
  it('are counted in /healthz\'s warnings and logged once per start; the socket\'s address still counts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'punchcard-proxies-'));
    const server = await spawnServer(join(dir, 'proxies.db'), ['--quiet', '--rate-limit-address', '5/min'], { PUNCHCARD_LOG: 'info' });
    try {
      expect((await request(server.url, 'GET', '/healthz')).body.warnings).toEqual([]);
      const headers: Record<string, string>[] = [{ 'x-forwarded-for': '203.0.113.1' }, { forwarded: 'for="[2001:db8::1]:4711";proto=https' }, { 'x-real-ip': '203.0.113.3' }];
      for (const sent of headers) expect((await request(server.url, 'GET', '/healthz', { headers: sent })).status).toBe(200);
      const { warnings } = (await request(server.url, 'GET', '/healthz')).body;
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatch(/^3 requests since the server started carried forwarding headers .* --trusted-proxy/);
      // Five requests from one socket: the headers named other clients, yet the sixth is over the limit.
      expect((await request(server.url, 'GET', '/healthz', { headers: { 'x-forwarded-for': '203.0.113.9' } })).status).toBe(429);
      server.child.kill('SIGTERM');
      await new Promise((resolve) => server.child.once('exit', resolve));
      const lines = server.printed().split('\n').filter((line) => line.includes('forwarding headers'));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/WARN .*--trusted-proxy/);
    } finally {
      server.child.kill('SIGTERM');
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
