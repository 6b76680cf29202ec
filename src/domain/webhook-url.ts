import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { badRequest } from './errors.ts';

/** Resolves a host name to every address it has (node:dns lookup with all: true). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface UrlPolicy {
  /** `--allow-insecure-webhooks`: plain http, and loopback addresses, for development and tests. */
  allowInsecure: boolean;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
const isLoopback = (address: string) => LOOPBACK.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4');

/**
 * Addresses a webhook may never reach (SSRF): everything that is not a public unicast address.
 * Metadata services (169.254.169.254, fd00:ec2::254) sit inside the link-local and private ranges.
 */
const INTERNAL: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['0.0.0.0', 8, 'ipv4', 'unspecified'],
  ['10.0.0.0', 8, 'ipv4', 'private'],
  ['100.64.0.0', 10, 'ipv4', 'shared (CGNAT)'],
  ['127.0.0.0', 8, 'ipv4', 'loopback'],
  ['169.254.0.0', 16, 'ipv4', 'link-local'],
  ['172.16.0.0', 12, 'ipv4', 'private'],
  ['192.0.0.0', 24, 'ipv4', 'reserved'],
  ['192.0.2.0', 24, 'ipv4', 'documentation'],
  ['192.168.0.0', 16, 'ipv4', 'private'],
  ['198.18.0.0', 15, 'ipv4', 'benchmarking'],
  ['198.51.100.0', 24, 'ipv4', 'documentation'],
  ['203.0.113.0', 24, 'ipv4', 'documentation'],
  ['224.0.0.0', 4, 'ipv4', 'multicast'],
  ['240.0.0.0', 4, 'ipv4', 'reserved'],
  ['::', 128, 'ipv6', 'unspecified'],
  ['::1', 128, 'ipv6', 'loopback'],
  ['::', 96, 'ipv6', 'IPv4-compatible'],
  ['100::', 64, 'ipv6', 'discard'],
  ['2001:db8::', 32, 'ipv6', 'documentation'],
  ['fc00::', 7, 'ipv6', 'private (unique local)'],
  ['fe80::', 10, 'ipv6', 'link-local'],
  ['fec0::', 10, 'ipv6', 'site-local'],
  ['ff00::', 8, 'ipv6', 'multicast'],
];
const RANGES = INTERNAL.map(([network, prefix, type, kind]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, type);
  return { list, type, kind };
});

/** The 16 bytes of an IPv6 address (any valid text form, including a trailing dotted quad). */
function ipv6Bytes(address: string): Buffer {
  let text = address.replace(/%.*$/, '');
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) text = text.slice(0, quad.index) + [0, 2].map((i) => ((Number(quad[i + 1]) << 8) | Number(quad[i + 2])).toString(16)).join(':');
  const [head, tail] = text.split('::') as [string, string | undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const missing = 8 - groups(head).length - groups(tail).length;
  const all = tail === undefined ? groups(head) : [...groups(head), ...Array<string>(missing).fill('0'), ...groups(tail)];
  const bytes = Buffer.alloc(16);
  all.forEach((group, i) => bytes.writeUInt16BE(parseInt(group, 16), i * 2));
  return bytes;
}

const EMBEDDING: [string, number, string, (bytes: Buffer) => Buffer][] = [
  ['::ffff:0:0', 96, 'IPv4-mapped', (b) => b.subarray(12)],
  ['::ffff:0:0:0', 96, 'IPv4-translated', (b) => b.subarray(12)],
  ['64:ff9b::', 96, 'NAT64', (b) => b.subarray(12)],
  // RFC 6052 /48 layout: bits 64-71 are the zero "u" octet, so the address straddles it.
  ['64:ff9b:1::', 48, 'local NAT64', (b) => Buffer.concat([b.subarray(6, 8), b.subarray(9, 11)])],
  ['2002::', 16, '6to4', (b) => b.subarray(2, 6)],
  // Teredo: the client's address is the last 32 bits, inverted.
  ['2001::', 32, 'Teredo', (b) => Buffer.from(b.subarray(12).map((byte) => byte ^ 0xff))],
];
const EMBEDDINGS = EMBEDDING.map(([network, prefix, kind, extract]) => {
  const list = new BlockList();
  list.addSubnet(network, prefix, 'ipv6');
  return { list, kind, extract };
});

/** The IPv4 address an IPv6 address carries (mapped, translated, NAT64, 6to4, Teredo), if any. */
function embeddedIPv4(address: string): { ipv4: string; kind: string } | null {
  const embedding = EMBEDDINGS.find((e) => e.list.check(address, 'ipv6'));
  return embedding ? { ipv4: [...embedding.extract(ipv6Bytes(address))].join('.'), kind: embedding.kind } : null;
}

/**
 * Why `address` may not be reached, or null when it may. An IPv6 form that carries an IPv4 address
 * is judged by that address: the packets end up there.
 */
export function refusedAddress(address: string, policy: UrlPolicy): string | null {
  const type = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  if (policy.allowInsecure && isLoopback(address)) return null;
  if (type === 'ipv6') {
    const embedded = embeddedIPv4(address);
    if (embedded) {
      const refused = refusedAddress(embedded.ipv4, policy);
      return refused ? `${refused}, carried in the ${embedded.kind} address ${address}` : null;
    }
  }
  const range = RANGES.find((r) => r.type === type && r.list.check(address, type));
  return range ? `${address} is a ${range.kind} address` : null;
}

/** `localhost` and its subdomains always mean this machine (RFC 6761), whatever DNS says. */
const isLoopbackName = (hostname: string) => hostname === 'localhost' || hostname.endsWith('.localhost');

/** The URL's host without IPv6 brackets; WHATWG parsing already turned forms like 0x7f.1 into 127.0.0.1. */
const bareHost = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/**
 * Checks what can be checked without DNS: the scheme, credentials, and an IP literal host.
 * Returns the reason the URL is refused, or null.
 */
export function urlRefusal(text: string, policy: UrlPolicy): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a valid URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an https URL';
  if (url.username || url.password) return 'must not contain a user name or password';
  const host = bareHost(url);
  const literal = isIP(host) !== 0;
  if (url.protocol === 'http:') {
    const loopback = literal ? isLoopback(host) : isLoopbackName(host);
    if (!policy.allowInsecure || !loopback) {
      return 'must be an https URL (plain http is allowed only to loopback hosts on a server started with --allow-insecure-webhooks)';
    }
  }
  const refused = literal ? refusedAddress(host, policy) : null;
  return refused ? `must not point inside a private network (${refused})` : null;
}

/** A URL or address that webhooks may not reach (as opposed to a DNS failure, which is retried). */
export class RefusedAddress extends Error {}

/**
 * Resolves the URL's host and refuses it if ANY address is internal. Run at registration and again
 * before every delivery, so a name that later resolves inward is not followed. Returns the checked
 * addresses (empty for an IP literal host).
 */
export async function resolveSafely(text: string, policy: UrlPolicy, resolve: Resolver): Promise<{ address: string; family: number }[]> {
  const refusal = urlRefusal(text, policy);
  if (refusal) throw new RefusedAddress(`The URL ${refusal}`);
  const url = new URL(text);
  const host = bareHost(url);
  if (isIP(host) !== 0) return [];
  const addresses = await resolve(host);
  if (addresses.length === 0) throw Object.assign(new Error(`${host} did not resolve to any address`), { code: 'ENOTFOUND' });
  for (const { address } of addresses) {
    const refused = refusedAddress(address, policy);
    if (refused) throw new RefusedAddress(`${host} resolves to ${refused}; webhooks may not reach private networks`);
    if (url.protocol === 'http:' && !isLoopback(address)) throw new RefusedAddress(`${host} resolves to ${address}; plain http may only reach loopback`);
  }
  return addresses;
}

/**
 * The registration check, as a 400 naming the field. A name that does not resolve yet is accepted
 * (its deliveries fail and are retried until it does); one that resolves inward is refused.
 */
export async function checkWebhookUrl(text: string, policy: UrlPolicy, resolve: Resolver): Promise<void> {
  const refusal = urlRefusal(text, policy);
  if (refusal) throw badRequest(`"url" ${refusal}`);
  try {
    await resolveSafely(text, policy, resolve);
  } catch (error) {
    if (error instanceof RefusedAddress) throw badRequest(`"url" is refused: ${(error as Error).message}`);
  }
}
